/**
 * The station's own IndexedDB: scans waiting for the server, and each event's copy of the
 * guest list the door decides from when the server cannot be reached.
 */
export const DB_NAME = 'doorlist';
const VERSION = 2;

export const QUEUE_STORE = 'queued_scans';
export const GUEST_STORE = 'guests';
export const META_STORE = 'meta';

let opening: Promise<IDBDatabase> | undefined;
let generation = 0;

/** Which wipe this page is past: a copy opened under one generation never writes under the next. */
export function writeGeneration(): number {
  return generation;
}

/** Called by a wipe before it removes anything: every copy opened until now stops writing. */
export function forgetWrites(): void {
  generation += 1;
}

function openDb(): Promise<IDBDatabase> {
  opening ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, VERSION);
    request.onupgradeneeded = (e) => {
      const db = request.result;
      // Version 1 had the queue only; its waiting scans are kept.
      if (e.oldVersion < 1) db.createObjectStore(QUEUE_STORE, { keyPath: 'uid' }).createIndex('eventId', 'eventId');
      if (e.oldVersion < 2) {
        db.createObjectStore(GUEST_STORE, { keyPath: ['eventId', 'id'] }).createIndex('eventId', 'eventId');
        db.createObjectStore(META_STORE, { keyPath: 'key' });
      }
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => {
      opening = undefined;
      reject(request.error);
    };
  });
  return opening;
}

/** One request in its own transaction; resolves once the transaction has committed. */
export function run<T>(storeName: string, mode: IDBTransactionMode, action: (store: IDBObjectStore) => IDBRequest<T> | void): Promise<T> {
  return openDb().then(
    (db) =>
      new Promise<T>((resolve, reject) => {
        const tx = db.transaction(storeName, mode);
        const request = action(tx.objectStore(storeName));
        tx.oncomplete = () => resolve(request ? request.result : (undefined as T));
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error);
      }),
  );
}
