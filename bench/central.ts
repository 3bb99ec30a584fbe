/**
 * `npm run bench -- --db postgres://... --guests 1000000`: a central Doorlist on PostgreSQL.
 * A million guests over many events (one of 100,000, the rest 10,000 each), written through
 * the repositories' multi-row bulk insert; then guest search, stats, a door's scan latency and
 * a full sync of the 100k event against one server process, and check-in throughput with one
 * and with two processes on the same database, held against the bare node:http floor.
 */
import { randomUUID } from 'node:crypto';
import { createDb, migrateLatest } from '../db/knex';
import type { GuestInsert } from '../db/repositories/guests';
import { insertGuests } from '../db/repositories/guest-inserts';
import { percentile, round, spawnServer, timed, type ChildServer, type Log, type Metric } from './common';
import { benchFloor } from './floor';
import { drive, type LoadResult } from './load';
import { barcodeOf, lastNameOf } from './seed';

export const CENTRAL_TARGETS = { searchMs: 50, statsMs: 50, scanP99Ms: 10, fullSyncS: 3 };
const SYNC_EVENT_GUESTS = 100_000;
const OTHER_EVENT_GUESTS = 10_000;
const CONNECTIONS = 32;
const DOOR_SCANS = 1000;
const ADMIN = { username: 'bench-admin', password: 'bench-admin-password' };

interface CentralSeed {
  groupId: number;
  /** The 100k event: searched, counted, scanned and synced. */
  eventId: number;
  eventGuests: number;
  events: number;
}

async function seedCentral(url: string, guests: number, log: Log): Promise<CentralSeed> {
  const db = createDb(url);
  try {
    await migrateLatest(db);
    const now = new Date().toISOString();
    const rec = () => ({ uid: randomUUID(), created: now, modified: now });
    const [group] = await db('groups').insert({ ...rec(), name: 'Central bench organiser' }).returning('id');
    const sizes = [Math.min(guests, SYNC_EVENT_GUESTS)];
    for (let left = guests - sizes[0]; left > 0; left -= OTHER_EVENT_GUESTS) sizes.push(Math.min(left, OTHER_EVENT_GUESTS));
    const events: { id: number; typeId: number }[] = [];
    for (const n of sizes.keys()) {
      const [event] = await db('events')
        .insert({ ...rec(), group_id: group.id, name: `Central event ${n}`, starts: '2026-12-01T09:00:00', ends: '2026-12-01T23:00:00', timezone: 'GMT' })
        .returning('id');
      const [type] = await db('registration_types').insert({ ...rec(), event_id: event.id, name: 'Delegate', description: '' }).returning('id');
      events.push({ id: event.id, typeId: type.id });
    }
    // Batches of 10,000 guests, written by three transactions at once: while one batch's rows
    // are built here, PostgreSQL writes the others.
    const jobs = sizes.flatMap((size, n) => Array.from({ length: Math.ceil(size / 10_000) }, (_, k) => ({ n, start: k * 10_000, end: Math.min(size, (k + 1) * 10_000) })));
    const started = Date.now();
    let written = 0;
    let reported = 0;
    const writer = async () => {
      for (let job = jobs.shift(); job; job = jobs.shift()) {
        const { id, typeId } = events[job.n];
        const batch: GuestInsert[] = [];
        for (let i = job.start; i < job.end; i++) {
          batch.push({ registration_type_id: typeId, first_name: 'Ada', last_name: lastNameOf(i), email: `guest${i}@bench.test`, company: 'Acme', job_title: 'Engineer', barcode: barcodeOf(i) });
        }
        await db.transaction((trx) => insertGuests(trx, id, batch));
        written += batch.length;
        if (written - reported >= 100_000 || written === guests) {
          reported = written;
          log(`  seeded ${written} / ${guests} guests (${Math.round((Date.now() - started) / 1000)} s)`);
        }
      }
    };
    await Promise.all([writer(), writer(), writer()]);
    await db.raw('vacuum analyze');
    // The seed leaves about a gigabyte of WAL behind it: flush it now, or the checkpoint it
    // starts writes for minutes beside the measurements that follow. CHECKPOINT needs a
    // superuser or pg_checkpoint; without either the bench goes on and says so.
    await db.raw('checkpoint').catch((err: Error) => log(`  no CHECKPOINT after the seed (${err.message}): figures may include its writes`));
    return { groupId: group.id, eventId: events[0].id, eventGuests: sizes[0], events: sizes.length };
  } finally {
    await db.destroy();
  }
}

async function getJson<T>(url: string, key: string): Promise<T> {
  const res = await fetch(url, { headers: { authorization: `Token ${key}` } });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function post<T>(url: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Token ${token}` } : {}) }, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Times `times` calls one after another: p50 and p99 in ms. */
async function latencies(times: number, call: (n: number) => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const ms: number[] = [];
  for (let n = 0; n < times; n++) ms.push((await timed(() => call(n)))[1]);
  ms.sort((a, b) => a - b);
  return { p50: round(percentile(ms, 50)), p99: round(percentile(ms, 99)) };
}

/** The check-in load split over the given servers at once, each with its share of connections and guests. */
async function checkinLoad(urls: string[], key: string, from: number, amount: number): Promise<LoadResult[]> {
  const share = Math.floor(amount / urls.length);
  return Promise.all(
    urls.map((url, s) =>
      drive({
        url,
        method: 'POST',
        headers: { authorization: `Token ${key}` },
        body: (i) => JSON.stringify({ barcode: barcodeOf(from + s * share + i), uid: `central-scan-${from + s * share + i}`, station: `Door ${s}` }),
        connections: CONNECTIONS / urls.length,
        amount: share,
      }),
    ),
  );
}

/** Requests per second of loads run side by side, and the worst of their p99s. */
function throughput(results: LoadResult[]): { rps: number; p99: number } {
  for (const r of results) if (r.non2xx || r.errors) throw new Error(`check-in load: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return { rps: Math.round(results.reduce((sum, r) => sum + r.requestsPerSecond, 0)), p99: Math.max(...results.map((r) => r.p99Ms)) };
}

export async function benchCentral(input: { db: string; guests: number; entry: string[]; log: Log }): Promise<Metric[]> {
  const { log } = input;
  log(`Seeding ${input.guests} guests into PostgreSQL (multi-row bulk insert, not HTTP)...`);
  const [seed, seedMs] = await timed(() => seedCentral(input.db, input.guests, log));
  const metrics: Metric[] = [{ section: 'central', name: `seed ${input.guests} guests in ${seed.events} events`, value: round(seedMs / 1000, 1), unit: 's' }];
  const env = { DOORLIST_DB: input.db, DOORLIST_PORT: '0', DOORLIST_HOST: '127.0.0.1', DOORLIST_ADMIN_USERNAME: ADMIN.username, DOORLIST_ADMIN_PASSWORD: ADMIN.password, DOORLIST_LOG_LEVEL: 'warn' };
  const servers: ChildServer[] = [];
  try {
    servers.push(await spawnServer(input.entry, env, /Doorlist listening on (http:\/\/\S+)/));
    const base = (s: ChildServer) => `${s.url}/api/v1`;
    const { token } = await post<{ token: string }>(`${base(servers[0])}/apps/api/auth`, ADMIN);
    const { key } = await post<{ key: string }>(`${base(servers[0])}/groups/${seed.groupId}/api_keys`, { name: 'central bench door' }, token);
    const eventUrl = `${base(servers[0])}/events/${seed.eventId}`;

    const search = await latencies(300, async (n) => {
      const page = await getJson<{ count: number }>(`${eventUrl}/guests?search=${lastNameOf((n * 7919) % seed.eventGuests)}&page_size=25`, key);
      if (page.count < 1) throw new Error('search found nothing');
    });
    log(`  guest search in the ${seed.eventGuests} event: p50 ${search.p50} ms, p99 ${search.p99} ms`);
    const stats = await latencies(50, () => getJson(`${eventUrl}/stats`, key));
    log(`  stats of the ${seed.eventGuests} event: p50 ${stats.p50} ms, p99 ${stats.p99} ms`);

    // One door scanning guest after guest, each waiting for its answer: one autocannon
    // connection, the client SQLite's sequential scanner uses (bench/checkin.ts). fetch()'s own
    // p99 against the bare floor is 5-7 ms here, which would hide the server's tail.
    const door = await drive({
      url: `${eventUrl}/checkins`,
      method: 'POST',
      headers: { authorization: `Token ${key}` },
      body: (i) => JSON.stringify({ barcode: barcodeOf(i), uid: `central-door-${i}`, station: 'Door' }),
      connections: 1,
      amount: DOOR_SCANS,
    });
    if (door.non2xx || door.errors) throw new Error(`one door: ${door.non2xx} non-2xx answers, ${door.errors} errors`);
    let scanned = DOOR_SCANS;
    const scanMs = { p50: door.p50Ms, p99: door.p99Ms };
    log(`  one door scanning, one process: p50 ${scanMs.p50} ms, p99 ${scanMs.p99} ms`);

    // A follower's full sync: every page of 1000, one after another.
    const [received, syncMs] = await timed(async () => {
      let total = 0;
      let url: string | null = `${eventUrl}/guests?page_size=1000`;
      while (url) {
        const page: { next: string | null; results: unknown[] } = await getJson(url, key);
        total += page.results.length;
        url = page.next;
      }
      return total;
    });
    if (received !== seed.eventGuests) throw new Error(`full sync received ${received} of ${seed.eventGuests} guests`);
    const fullS = round(syncMs / 1000);
    log(`  full sync of ${received} guests (page_size 1000): ${fullS} s`);
    const lastPage = await latencies(5, () => getJson(`${eventUrl}/guests?page_size=1000&page=${Math.ceil(seed.eventGuests / 1000)}`, key));
    const firstPage = await latencies(5, () => getJson(`${eventUrl}/guests?page_size=1000&page=1`, key));
    log(`  one page of 1000: first ${firstPage.p50} ms, last ${lastPage.p50} ms`);

    const amount = Math.min(20_000, Math.floor((seed.eventGuests - scanned) / 3));
    const floor = await benchFloor({ connections: CONNECTIONS, amount, warmup: Math.min(2_000, amount) }, log);
    await checkinLoad([`${eventUrl}/checkins`], key, scanned, Math.min(2_000, amount));
    scanned += Math.min(2_000, amount);
    const one = throughput(await checkinLoad([`${eventUrl}/checkins`], key, scanned, amount));
    scanned += amount;
    servers.push(await spawnServer(input.entry, env, /Doorlist listening on (http:\/\/\S+)/));
    const urls = servers.map((s) => `${base(s)}/events/${seed.eventId}/checkins`);
    await checkinLoad(urls, key, scanned, Math.min(2_000, amount));
    scanned += Math.min(2_000, amount);
    const two = throughput(await checkinLoad(urls, key, scanned, amount));
    const bare = floor.result.requestsPerSecond;
    log(`  check-in, ${CONNECTIONS} connections: one process ${one.rps} req/s (p99 ${one.p99} ms), two processes ${two.rps} req/s (p99 ${two.p99} ms); bare node:http ${bare} req/s`);

    metrics.push(
      { section: 'central', name: `guest search p50 (${seed.eventGuests}-guest event, ${input.guests} in the database)`, value: search.p50, unit: 'ms' },
      { section: 'central', name: 'guest search p99', value: search.p99, unit: 'ms', target: `≤ ${CENTRAL_TARGETS.searchMs}`, ok: search.p99 <= CENTRAL_TARGETS.searchMs },
      { section: 'central', name: 'stats p50', value: stats.p50, unit: 'ms' },
      { section: 'central', name: 'stats p99', value: stats.p99, unit: 'ms', target: `≤ ${CENTRAL_TARGETS.statsMs}`, ok: stats.p99 <= CENTRAL_TARGETS.statsMs },
      { section: 'central', name: 'one door scanning, one process, p50', value: scanMs.p50, unit: 'ms' },
      { section: 'central', name: 'one door scanning, one process, p99', value: scanMs.p99, unit: 'ms', target: `≤ ${CENTRAL_TARGETS.scanP99Ms}`, ok: scanMs.p99 <= CENTRAL_TARGETS.scanP99Ms },
      { section: 'central', name: `full sync of the ${seed.eventGuests}-guest event (page_size 1000)`, value: fullS, unit: 's', target: `≤ ${CENTRAL_TARGETS.fullSyncS}`, ok: fullS <= CENTRAL_TARGETS.fullSyncS },
      { section: 'central', name: 'guest page of 1000: first page', value: firstPage.p50, unit: 'ms' },
      { section: 'central', name: 'guest page of 1000: last page', value: lastPage.p50, unit: 'ms' },
      ...floor.metrics.filter((m) => ['bare node:http requests/s', 'Express alone requests/s', 'bare node:http one sequential client p99', 'Express alone one sequential client p99'].includes(m.name)),
      { section: 'central', name: `check-in requests/s at ${CONNECTIONS} connections, one process`, value: one.rps, unit: 'req/s' },
      { section: 'central', name: `check-in p99 at ${CONNECTIONS} connections, one process`, value: one.p99, unit: 'ms' },
      { section: 'central', name: `check-in requests/s at ${CONNECTIONS} connections, two processes`, value: two.rps, unit: 'req/s' },
      { section: 'central', name: `check-in p99 at ${CONNECTIONS} connections, two processes`, value: two.p99, unit: 'ms' },
      { section: 'central', name: 'check-in / floor, one process', value: round(one.rps / bare), unit: 'ratio' },
      { section: 'central', name: 'check-in / floor, two processes', value: round(two.rps / bare), unit: 'ratio' },
    );
    return metrics;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}
