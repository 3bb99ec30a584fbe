import { GUEST_STORE, META_STORE, QUEUE_STORE, DB_NAME, forgetWrites, run } from './local-db';

/**
 * What this browser keeps about guests and events, and how it is wiped (issue 42): on sign-out,
 * on a 401 (a revoked key or an expired sign-in) and when the station changes event. Only the
 * app shell and the station's own settings stay through a sign-out; the scans still waiting
 * for the server stay until they are handed over or someone discards them on purpose.
 */

/** The station's own settings, about no event and no guest: kept through a sign-out. */
export const STATION_SETTINGS: readonly string[] = ['doorlist.language', 'doorlist.sound', 'doorlist.station', 'doorlist.nfcFallback', 'doorlist.kioskPin', 'doorlist.badges'];

/**
 * The event the door was on (its id and name only): kept through a 401, so whoever signs in next
 * comes back to it and hands its waiting scans over; removed on a sign-out.
 */
export const EVENT_POINTER = 'doorlist.event';

/** The app shell's files (workbox precache): no API answer is ever kept there. */
const APP_SHELL_CACHE = /^workbox-precache/;

export type WipeScope =
  /** Nobody is signed in: everything but the station's settings (and the event pointer, if asked). */
  | { signedOut: true; keepEventPointer: boolean }
  /** The station is on `eventId` now: every other event's data goes. */
  | { signedOut: false; eventId: number };

/** The event a per-event key belongs to: `doorlist.<what>.<eventId>` (the log, types, sessions, counts...). */
export function eventOfKey(key: string): number | undefined {
  const match = /^doorlist\.[A-Za-z]+\.(\d+)$/.exec(key);
  return match ? Number(match[1]) : undefined;
}

/**
 * Which of a storage's keys to remove. Signed out: every key but the station's settings, so a key
 * added later for an event or a guest is wiped without anyone listing it here. Changing event:
 * the keys of every other event, nothing else.
 */
export function storageKeysToWipe(keys: readonly string[], scope: WipeScope): string[] {
  if (scope.signedOut) return keys.filter((key) => !STATION_SETTINGS.includes(key) && !(scope.keepEventPointer && key === EVENT_POINTER));
  return keys.filter((key) => {
    const event = eventOfKey(key);
    return event !== undefined && event !== scope.eventId;
  });
}

/** The guest copy's bookkeeping (`guests:<eventId>`) to remove. */
export function metaKeysToWipe(keys: readonly string[], scope: WipeScope): string[] {
  if (scope.signedOut) return [...keys];
  return keys.filter((key) => key !== `guests:${scope.eventId}`);
}

/** The Cache Storage caches to remove: any but the app shell's. */
export function cachesToWipe(names: readonly string[]): string[] {
  return names.filter((name) => !APP_SHELL_CACHE.test(name));
}

function wipeStorage(storage: Storage, scope: WipeScope): void {
  const keys = Array.from({ length: storage.length }, (_, i) => storage.key(i)).filter((key): key is string => key !== null);
  for (const key of storageKeysToWipe(keys, scope)) storage.removeItem(key);
}

/** The guests of every event but `eventId`: below [eventId] and above [eventId, Infinity] in the store's [eventId, id] key order. */
function deleteOtherEventsGuests(store: IDBObjectStore, eventId: number): void {
  store.delete(IDBKeyRange.upperBound([eventId], true));
  store.delete(IDBKeyRange.lowerBound([eventId, Infinity], true));
}

async function wipeIndexedDb(scope: WipeScope): Promise<void> {
  await run(GUEST_STORE, 'readwrite', (store) => {
    if (scope.signedOut) store.clear();
    else deleteOtherEventsGuests(store, scope.eventId);
  });
  const metaKeys = await run<IDBValidKey[]>(META_STORE, 'readonly', (store) => store.getAllKeys());
  const gone = metaKeysToWipe(metaKeys.map(String), scope);
  if (gone.length) await run(META_STORE, 'readwrite', (store) => gone.forEach((key) => store.delete(key)));
  if (!scope.signedOut) return;
  // No other database is Doorlist's own today; one that appears (a library's, a later version's) goes too.
  const databases = typeof indexedDB.databases === 'function' ? await indexedDB.databases() : [];
  for (const { name } of databases) if (name && name !== DB_NAME) indexedDB.deleteDatabase(name);
}

async function wipeCaches(): Promise<void> {
  if (typeof caches === 'undefined') return;
  for (const name of cachesToWipe(await caches.keys())) await caches.delete(name);
}

/**
 * Wipes what `scope` names from localStorage, sessionStorage, IndexedDB and Cache Storage. Any
 * copy opened before this never writes again (forgetWrites), so an answer still on its way cannot
 * put a guest back. The waiting scans are never touched here (discardQueued does that).
 */
export async function wipeDeviceData(scope: WipeScope): Promise<void> {
  forgetWrites();
  wipeStorage(localStorage, scope);
  if (scope.signedOut) wipeStorage(sessionStorage, scope);
  const steps = [wipeIndexedDb(scope), scope.signedOut ? wipeCaches() : Promise.resolve()];
  // A browser without IndexedDB or caches (private mode) has nothing kept there to wipe.
  await Promise.all(steps.map((step) => step.catch(() => undefined)));
}

/** Throws away the scans still waiting for the server: only when the user has said so. */
export function discardQueued(): Promise<undefined> {
  return run(QUEUE_STORE, 'readwrite', (store) => store.clear());
}
