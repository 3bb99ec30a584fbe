import type { Page } from '@playwright/test';

/** Everything the page's origin keeps in the browser, read the way anyone holding the device could. */
export interface BrowserData {
  /** Every record of every object store of every IndexedDB database, by `database/store`. */
  stores: Record<string, unknown[]>;
  local: Record<string, string>;
  session: Record<string, string>;
  caches: string[];
  /** Every request URL kept in a cache other than the app shell's (workbox precache). */
  cachedOutsideShell: string[];
}

/**
 * Opens `path` of `baseUrl` with `stored` already in the origin's localStorage. It is written on
 * an API answer of the same origin, which runs none of the screen, so the screen starts with it:
 * written on the screen's own page, a start slowed by load could read it half-way and begin
 * asking the server just before a reload cut those requests off.
 */
export async function openWithStorage(page: Page, baseUrl: string, path: string, stored: Record<string, string>): Promise<void> {
  await gotoThroughNetworkChanges(page, `${baseUrl}/api/v1/setup`);
  await page.evaluate((entries) => {
    for (const [key, value] of Object.entries(entries)) localStorage.setItem(key, value);
  }, stored);
  await gotoThroughNetworkChanges(page, `${baseUrl}${path}`);
}

/**
 * page.goto that tries again while Chromium answers ERR_NETWORK_CHANGED: the other worker's LAN
 * test adds and removes a bridge address on this machine, and Chromium drops the navigation
 * under way when the machine's addresses change (a CI run of 5892b1a). Anything else fails.
 */
export async function gotoThroughNetworkChanges(page: Page, url: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await page.goto(url);
      return;
    } catch (err) {
      if (attempt >= 5 || !String(err).includes('ERR_NETWORK_CHANGED')) throw err;
    }
  }
}

export function browserData(page: Page): Promise<BrowserData> {
  return page.evaluate(async () => {
    const stores: Record<string, unknown[]> = {};
    for (const { name } of await indexedDB.databases()) {
      if (!name) continue;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open(name);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      for (const store of Array.from(db.objectStoreNames)) {
        stores[`${name}/${store}`] = await new Promise<unknown[]>((resolve, reject) => {
          const request = db.transaction(store).objectStore(store).getAll();
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
      }
      db.close();
    }
    const entries = (storage: Storage) => Object.fromEntries(Object.keys(storage).map((key) => [key, storage.getItem(key) ?? '']));
    const names = await caches.keys();
    const cachedOutsideShell: string[] = [];
    for (const name of names.filter((n) => !n.startsWith('workbox-precache'))) {
      for (const request of await (await caches.open(name)).keys()) cachedOutsideShell.push(request.url);
    }
    return { stores, local: entries(localStorage), session: entries(sessionStorage), caches: names, cachedOutsideShell };
  });
}

/** How many records the stores hold, all stores but those named. */
export function recordCount(data: BrowserData, except: string[] = []): number {
  return Object.entries(data.stores)
    .filter(([store]) => !except.includes(store))
    .reduce((sum, [, records]) => sum + records.length, 0);
}

/** The strings of `needles` found anywhere in what the browser keeps (storage values and records). */
export function foundIn(data: BrowserData, needles: string[]): string[] {
  const text = JSON.stringify([data.stores, data.local, data.session]).toLowerCase();
  return needles.filter((needle) => text.includes(needle.toLowerCase()));
}
