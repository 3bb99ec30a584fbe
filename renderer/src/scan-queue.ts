import type { ScanSend } from './checkin';

/** A scan the server could not take yet, kept in IndexedDB until it answers. */
export interface QueuedScan extends ScanSend {
  eventId: number;
  queuedAt: number;
}

const DB_NAME = 'doorlist';
const STORE = 'queued_scans';

let opening: Promise<IDBDatabase> | undefined;

function openDb(): Promise<IDBDatabase> {
  opening ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      const store = request.result.createObjectStore(STORE, { keyPath: 'uid' });
      store.createIndex('eventId', 'eventId');
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => {
      opening = undefined;
      reject(request.error);
    };
  });
  return opening;
}

function run<T>(mode: IDBTransactionMode, action: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return openDb().then(
    (db) =>
      new Promise<T>((resolve, reject) => {
        const tx = db.transaction(STORE, mode);
        const request = action(tx.objectStore(STORE));
        tx.oncomplete = () => resolve(request.result);
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error);
      }),
  );
}

export function queueScan(scan: QueuedScan): Promise<IDBValidKey> {
  return run('readwrite', (store) => store.put(scan));
}

/** Every waiting scan (of any event: a station may have switched events since), oldest first. */
export async function queuedScans(): Promise<QueuedScan[]> {
  const all = await run<QueuedScan[]>('readonly', (store) => store.getAll());
  return all.sort((a, b) => a.queuedAt - b.queuedAt);
}

export function dropQueuedScan(uid: string): Promise<undefined> {
  return run('readwrite', (store) => store.delete(uid));
}
