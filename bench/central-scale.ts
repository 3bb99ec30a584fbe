/**
 * `--only central-scale` (PostgreSQL only): one central, two server processes on the same
 * database, 100 door laptops following its event (bench/sim-follower.ts: the real sync
 * protocol, a cycle a second each, half of them on each process) and one door scanning at the
 * central beside them. Door scans alone first, in the same run, as the baseline. Figures: the
 * central's CPU (both processes, from /proc) per follower-second and as cores, the door's
 * p50/p99, the followers' cycle times, and every scan delivered to every follower exactly once.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDb, type Db } from '../db/knex';
import { newUid } from '../core/uid';
import { percentile, readCpuMs, round, spawnServer, type ChildServer, type Log, type Metric } from './common';
import { barcodeOf } from './seed';
import { readPulled, send, SimFollower, type CycleTimes, type Snapshot } from './sim-follower';

/** Issue 46: 100 followers cost the central under one core; the door's p99 stays under 50 ms. */
export const CENTRAL_SCALE_TARGETS = { followerCores: 1, doorP99Ms: 50, cycleP99Ms: 1000 };
const FOLLOWERS = 100;
const CYCLE_MS = 1000;
/** The door: one station scanning guest after guest, one scan every 250 ms. */
const DOOR_EVERY_MS = 250;
/** A fifth of the followers scan at their own door too, each a guest every 10 s, and push it. */
const SCANNING_FOLLOWERS = 20;
const FOLLOWER_SCAN_EVERY_MS = 10_000;
const BASELINE_S = 20;
const WARMUP_S = 5;
const MEASURE_S = 40;
/** After the scans stop, the followers cycle on until each holds every scan (a cycle pulls 10 s back). */
const DRAIN_MAX_S = 20;

export interface CentralScaleInput {
  server: ChildServer;
  serverArgs: string[];
  serverEnv: Record<string, string>;
  /** The administrator's token, to make the door laptops' key (role door) in the event's group. */
  adminToken: string;
  groupId: number;
  eventId: number;
  /** Guests from this index on are not scanned yet. */
  unscannedFrom: number;
}

/** CPU of the PostgreSQL cluster (its postmaster, the backends it has reaped, and those alive), in ms; undefined when it cannot be read. */
async function postgresCpu(db: Db): Promise<(() => number) | undefined> {
  try {
    const { rows } = await db.raw('show data_directory');
    const pid = Number(fs.readFileSync(path.join(rows[0].data_directory, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return () => {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      let ms = (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10;
      for (const child of fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean)) ms += readCpuMs(Number(child)) || 0;
      return ms;
    };
  } catch {
    return undefined;
  }
}

/** One station scanning sequentially at the central, a scan every DOOR_EVERY_MS, until `stop`; latencies (ms) and the uids it made. */
async function door(url: URL, key: string, from: number, stop: AbortSignal): Promise<{ ms: number[]; uids: string[] }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ms: number[] = [];
  const uids: string[] = [];
  const headers = { authorization: `Token ${key}`, 'content-type': 'application/json' };
  try {
    for (let i = from; !stop.aborted; i++) {
      const due = performance.now() + DOOR_EVERY_MS;
      const uid = newUid();
      const started = performance.now();
      const res = await send(agent, url, { method: 'POST', headers, body: JSON.stringify({ barcode: barcodeOf(i), uid, station: 'Central door' }) });
      ms.push(performance.now() - started);
      if (res.status !== 201) throw new Error(`door scan: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
      uids.push(uid);
      await sleep(Math.max(0, due - performance.now()));
    }
  } finally {
    agent.destroy();
  }
  return { ms: ms.sort((a, b) => a - b), uids };
}

/** The followers' first state: one whole pull of the event, as a follow begins. */
async function wholePull(base: string, eventId: number, key: string): Promise<Snapshot> {
  const agent = new http.Agent({ keepAlive: false });
  const res = await send(agent, new URL(`${base}/events/${eventId}/sync/changes`), { method: 'GET', headers: { authorization: `Token ${key}` } });
  if (res.status !== 200) throw new Error(`whole pull: ${res.status}`);
  const file = readPulled(res.body);
  const guestsByBarcode = new Map<string, Snapshot['eventRecord']>();
  for (const { table, record } of file.records) if (table === 'guests') guestsByBarcode.set(String(record.barcode), record);
  const eventRecord = file.records.find((r) => r.table === 'events')!.record;
  return { header: file.header, eventRecord, guestsByBarcode, cursor: String(res.headers['x-doorlist-cursor']) };
}

/**
 * Runs each follower's cycle every second (a cycle that overruns starts the next one at once),
 * spread over the second; a follower's own scan starts a cycle 50 ms later, as a write nudges
 * a real one. Until `stop`; answers each cycle's times.
 */
function runFollowers(followers: SimFollower[], stop: AbortSignal): { times: CycleTimes[]; done: Promise<void>; nudge: (n: number) => void } {
  const times: CycleTimes[] = [];
  const nudged = new Set<number>();
  const loops = followers.map(async (f, n) => {
    await sleep((n * CYCLE_MS) / followers.length);
    while (!stop.aborted) {
      const due = performance.now() + CYCLE_MS;
      nudged.delete(n);
      times.push(await f.cycle());
      while (!stop.aborted && performance.now() < due && !nudged.has(n)) await sleep(Math.min(50, due - performance.now()));
    }
  });
  const done = Promise.all(loops).then(() => undefined);
  // A follower that fails stops only itself; the failure is thrown where the run awaits `done`.
  done.catch(() => undefined);
  return { times, done, nudge: (n) => setTimeout(() => nudged.add(n), 50) };
}

const seconds = (ms: number) => ms / 1000;
/** Requests of each kind timed one after another, alone, for where a cycle's CPU goes. */
const ALONE_REQUESTS = 100;
/** Door scans made before those requests, so a pull and a replayed push carry what 10 s of this door bring. */
const ALONE_SCANS = 40;

/**
 * The central's CPU (all threads of the process asked) for each request of a cycle, alone:
 * a pull of ALONE_SCANS scans (check-ins and their guests), the venue hello, and a replayed
 * push of the same records (what a catch-up sends; a no-op merge), beside a small GET.
 */
async function costsAlone(server: ChildServer, follower: SimFollower, scan: (n: number) => Promise<unknown>, small: () => Promise<unknown>): Promise<Record<'pull' | 'hello' | 'push' | 'small', number>> {
  // From now: a pull also reaches back for pushes the central took just before (sync_arrivals).
  const since = new Date().toISOString();
  for (let n = 0; n < ALONE_SCANS; n++) await scan(n);
  const pulled = await follower.pull(since);
  if (pulled < 2 * ALONE_SCANS) throw new Error(`the pull timed alone holds ${pulled} records, not ${2 * ALONE_SCANS}`);
  const each = async (call: () => Promise<unknown>) => {
    const before = server.cpuMs();
    for (let n = 0; n < ALONE_REQUESTS; n++) await call();
    return (server.cpuMs() - before) / ALONE_REQUESTS;
  };
  const pull = await each(() => follower.pull(since));
  const hello = await each(() => follower.greet());
  const push = await each(async () => {
    const pushed = await follower.push(since, true);
    if (!pushed || 'refused' in pushed || pushed.records < 2 * ALONE_SCANS) throw new Error('the replayed push timed alone sent less than the scans pulled');
  });
  return { pull, hello, push, small: await each(small) };
}

async function doorKey(base: string, groupId: number, adminToken: string): Promise<string> {
  const body = JSON.stringify({ name: 'door laptops', role: 'door' });
  const res = await send(new http.Agent(), new URL(`${base}/groups/${groupId}/api_keys`), { method: 'POST', headers: { authorization: `Token ${adminToken}`, 'content-type': 'application/json' }, body });
  if (res.status !== 201) throw new Error(`door key: ${res.status}`);
  return (JSON.parse(res.body.toString('utf8')) as { key: string }).key;
}

export async function benchCentralScale(input: CentralScaleInput, log: Log): Promise<{ metrics: Metric[]; scanned: number }> {
  const loadAtStart = round(os.loadavg()[0], 1);
  const db = createDb(input.serverEnv.DOORLIST_DB);
  const second = await spawnServer(input.serverArgs, input.serverEnv, /Doorlist listening on (http:\/\/\S+)/);
  try {
    const servers = [input.server, second];
    const bases = servers.map((s) => `${s.url}/api/v1`);
    const centralCpu = () => servers.reduce((sum, s) => sum + s.cpuMs(), 0);
    const pgCpu = await postgresCpu(db);
    const key = await doorKey(bases[0], input.groupId, input.adminToken);
    // The venue's laptops share one door key, as docs/sync.md sets them up; BENCH_FOLLOWER_KEYS=each gives each its own.
    const keys = process.env.BENCH_FOLLOWER_KEYS === 'each' ? await Promise.all(Array.from({ length: FOLLOWERS }, () => doorKey(bases[0], input.groupId, input.adminToken))) : [key];
    const scanUrl = new URL(`${bases[0]}/events/${input.eventId}/checkins`);
    let next = input.unscannedFrom;

    // The baseline: the same door, both processes up, no follower.
    const baselineStop = AbortSignal.timeout(BASELINE_S * 1000);
    const cpu0 = centralCpu();
    const t0 = performance.now();
    const baseline = await door(scanUrl, key, next, baselineStop);
    const baselineCores = (centralCpu() - cpu0) / (performance.now() - t0);
    next += baseline.uids.length;
    log(`  door alone: ${baseline.ms.length} scans, p50 ${round(percentile(baseline.ms, 50), 1)} ms, p99 ${round(percentile(baseline.ms, 99), 1)} ms; central ${round(baselineCores)} cores`);

    const snapshot = await wholePull(bases[0], input.eventId, key);
    const followers = Array.from({ length: FOLLOWERS }, (_, n) => new SimFollower(`Follower ${n}`, bases[n % 2], input.eventId, keys[n % keys.length], snapshot));
    const stopFollowers = new AbortController();
    const run = runFollowers(followers, stopFollowers.signal);
    // The scans made while they follow; the baseline's are in their first whole pull.
    const expected = new Set<string>();
    await sleep(WARMUP_S * 1000);

    const measure = AbortSignal.timeout(MEASURE_S * 1000);
    const measuredFrom = run.times.length;
    const cpu1 = centralCpu();
    const pg1 = pgCpu?.();
    const client1 = process.cpuUsage();
    const t1 = performance.now();
    // Followers at their own doors: guests from the end of the range the door does not reach.
    let followerNext = next + Math.ceil((MEASURE_S * 1000) / DOOR_EVERY_MS) + 100;
    const followerScans = (async () => {
      const every = FOLLOWER_SCAN_EVERY_MS / SCANNING_FOLLOWERS;
      for (let k = 0; !measure.aborted; k++) {
        const n = (k % SCANNING_FOLLOWERS) * (FOLLOWERS / SCANNING_FOLLOWERS);
        const uid = newUid();
        followers[n].scan(barcodeOf(followerNext++), uid);
        expected.add(uid);
        run.nudge(n);
        await sleep(every);
      }
    })();
    const during = await door(scanUrl, key, next, measure);
    await followerScans;
    const wallMs = performance.now() - t1;
    const cpuMs = centralCpu() - cpu1;
    const pgMs = pg1 === undefined ? undefined : pgCpu!() - pg1;
    const client = process.cpuUsage(client1);
    const cycles = run.times.slice(measuredFrom);
    next += during.uids.length;
    for (const uid of during.uids) expected.add(uid);

    // Every scan made (at the door and at the followers' doors) must reach every follower.
    const drainUntil = performance.now() + DRAIN_MAX_S * 1000;
    const missingOf = (f: SimFollower) => [...expected].filter((uid) => !f.checkins.has(uid)).length;
    while (performance.now() < drainUntil && followers.some((f) => missingOf(f) > 0)) await sleep(200);
    stopFollowers.abort();
    await run.done;
    for (const f of followers) f.close();
    const complete = followers.filter((f) => missingOf(f) === 0).length;
    const missing = followers.reduce((sum, f) => sum + missingOf(f), 0);
    const repeats = followers.reduce((sum, f) => sum + f.repeatsInOneFile, 0);
    // And the central holds each scan exactly once, whatever the followers sent back up.
    const made = [...baseline.uids, ...expected];
    const held = await db('checkins').where('event_id', input.eventId).whereIn('uid', made).groupBy('uid').select('uid').count({ n: '*' });
    const twice = held.filter((r) => Number(r.n) !== 1).length;
    const absent = made.length - held.length;

    const scanAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const scanHeaders = { authorization: `Token ${key}`, 'content-type': 'application/json' };
    const aloneFrom = followerNext;
    const alone = await costsAlone(
      input.server,
      new SimFollower('Follower alone', bases[0], input.eventId, key, { ...snapshot, cursor: new Date().toISOString() }),
      (n) => send(scanAgent, scanUrl, { method: 'POST', headers: scanHeaders, body: JSON.stringify({ barcode: barcodeOf(aloneFrom + n), uid: newUid(), station: 'Central door' }) }),
      () => send(scanAgent, new URL(`${bases[0]}/events/${input.eventId}`), { method: 'GET', headers: { authorization: `Token ${key}` } }),
    );
    followerNext += ALONE_SCANS;
    scanAgent.destroy();
    log(`  one process, each request alone: pull of ${ALONE_SCANS} scans ${round(alone.pull, 2)} ms, venue hello ${round(alone.hello, 2)} ms, their push replayed ${round(alone.push, 2)} ms, GET /events/:id ${round(alone.small, 2)} ms of CPU`);

    const cores = cpuMs / wallMs;
    const followerCores = cores - baselineCores;
    // On a loaded machine the followers may not get their cycle a second: CPU a cycle done is
    // what a follower-second costs at the pace asked, and what 100 of them would take.
    const perCycleMs = (followerCores * wallMs) / Math.max(1, cycles.length);
    const projectedCores = (perCycleMs * FOLLOWERS) / CYCLE_MS;
    const sorted = (pick: (c: CycleTimes) => number | undefined) => cycles.map(pick).filter((v): v is number => v !== undefined).sort((a, b) => a - b);
    const cycleMs = sorted((c) => c.cycleMs);
    const pullMs = sorted((c) => c.pullMs);
    const pushMs = sorted((c) => c.pushMs);
    const pushes = pushMs.length;
    const pushedRecords = cycles.reduce((sum, c) => sum + c.pushedRecords, 0);
    const pulledRecords = cycles.reduce((sum, c) => sum + c.pulledRecords, 0);
    const conflicts = cycles.reduce((sum, c) => sum + c.conflicts, 0);
    const refused = (status: number) => cycles.filter((c) => c.refused === status).length;
    const doorP99 = round(percentile(during.ms, 99), 1);
    const cycleP99 = round(percentile(cycleMs, 99));
    const cyclesPerS = round(cycles.length / seconds(wallMs), 1);
    log(`  door beside ${FOLLOWERS} followers: ${during.ms.length} scans, p50 ${round(percentile(during.ms, 50), 1)} ms, p99 ${doorP99} ms`);
    log(`  central (2 processes) ${round(cores)} cores, ${round(followerCores)} for the followers (${round(perCycleMs, 2)} ms a follower cycle, ${round(projectedCores)} cores at one cycle a second each); PostgreSQL ${pgMs === undefined ? '?' : round(pgMs / wallMs)} cores; this client ${round((client.user + client.system) / 1000 / wallMs)} cores`);
    log(`  ${cyclesPerS} cycles/s, cycle p50 ${round(percentile(cycleMs, 50))} ms p99 ${cycleP99} ms; ${pushes} pushes of ${round(pushedRecords / Math.max(1, pushes), 1)} records on average; ${expected.size} scans, ${complete}/${FOLLOWERS} followers hold every one; at the central ${twice} twice, ${absent} absent`);

    const s = 'central-scale';
    const metrics: Metric[] = [
      { section: s, name: 'load average (1 min) at the section start', value: loadAtStart, unit: '' },
      { section: s, name: 'door keys the followers share (1: one for all, as docs/sync.md sets them up)', value: keys.length === 1 ? 1 : keys.length, unit: '' },
      { section: s, name: `door alone (2 processes, a scan every ${DOOR_EVERY_MS} ms): scan p50`, value: round(percentile(baseline.ms, 50), 1), unit: 'ms' },
      { section: s, name: 'door alone: scan p99', value: round(percentile(baseline.ms, 99), 1), unit: 'ms' },
      { section: s, name: 'door alone: central CPU (both processes)', value: round(baselineCores), unit: 'cores' },
      { section: s, name: `door beside ${FOLLOWERS} followers: scan p50`, value: round(percentile(during.ms, 50), 1), unit: 'ms' },
      { section: s, name: `door beside ${FOLLOWERS} followers: scan p99`, value: doorP99, unit: 'ms', target: `≤ ${CENTRAL_SCALE_TARGETS.doorP99Ms}`, ok: doorP99 <= CENTRAL_SCALE_TARGETS.doorP99Ms },
      { section: s, name: `central CPU with ${FOLLOWERS} followers (both processes)`, value: round(cores), unit: 'cores' },
      { section: s, name: `central CPU for the followers (less the door alone), as measured`, value: round(followerCores), unit: 'cores' },
      { section: s, name: 'central CPU per follower-second (a follower cycle)', value: round(perCycleMs, 2), unit: 'ms', target: `≤ ${(CENTRAL_SCALE_TARGETS.followerCores * CYCLE_MS) / FOLLOWERS}`, ok: perCycleMs <= (CENTRAL_SCALE_TARGETS.followerCores * CYCLE_MS) / FOLLOWERS },
      { section: s, name: `central CPU for ${FOLLOWERS} followers at a cycle a second each`, value: round(projectedCores), unit: 'cores', target: `≤ ${CENTRAL_SCALE_TARGETS.followerCores}`, ok: projectedCores <= CENTRAL_SCALE_TARGETS.followerCores },
      ...(pgMs === undefined ? [] : [{ section: s, name: `PostgreSQL CPU with ${FOLLOWERS} followers`, value: round(pgMs / wallMs), unit: 'cores' }]),
      { section: s, name: 'the bench client\'s CPU (followers and door)', value: round((client.user + client.system) / 1000 / wallMs), unit: 'cores' },
      { section: s, name: `follower cycles a second (${FOLLOWERS} followers, one each a second asked)`, value: cyclesPerS, unit: '/s', target: `≥ ${FOLLOWERS * 0.95}`, ok: cyclesPerS >= FOLLOWERS * 0.95 },
      { section: s, name: 'follower cycle (pull, venue hello, push) p50', value: round(percentile(cycleMs, 50)), unit: 'ms' },
      { section: s, name: 'follower cycle p99', value: cycleP99, unit: 'ms', target: `≤ ${CENTRAL_SCALE_TARGETS.cycleP99Ms}`, ok: cycleP99 <= CENTRAL_SCALE_TARGETS.cycleP99Ms },
      { section: s, name: 'follower pull p99', value: round(percentile(pullMs, 99)), unit: 'ms' },
      { section: s, name: 'follower push p99', value: round(percentile(pushMs, 99)), unit: 'ms' },
      { section: s, name: 'pushes a second (the followers\' own scans)', value: round(pushes / seconds(wallMs), 1), unit: '/s' },
      { section: s, name: 'records a pull, on average', value: round(pulledRecords / Math.max(1, cycles.length), 1), unit: '' },
      { section: s, name: 'records a push, on average', value: round(pushedRecords / Math.max(1, pushes), 1), unit: '' },
      { section: s, name: 'pushes refused 429 (a key\'s small pushes past 64 at once), sent again next cycle', value: refused(429), unit: '', target: '0', ok: refused(429) === 0 },
      { section: s, name: 'pushes refused 503 (the process\'s six pushes at once, after 3 s waiting)', value: refused(503), unit: '', target: '0', ok: refused(503) === 0 },
      { section: s, name: 'conflicts in push answers', value: conflicts, unit: '', target: '0', ok: conflicts === 0 },
      { section: s, name: `alone, one process: CPU of a pull of ${ALONE_SCANS} scans (their check-ins and guests)`, value: round(alone.pull, 2), unit: 'ms' },
      { section: s, name: 'alone, one process: CPU of a venue hello', value: round(alone.hello, 2), unit: 'ms' },
      { section: s, name: 'alone, one process: CPU of a replayed push of the same records (no-op merge, as a catch-up sends)', value: round(alone.push, 2), unit: 'ms' },
      { section: s, name: 'alone, one process: CPU of GET /events/:id (a small JSON, for scale)', value: round(alone.small, 2), unit: 'ms' },
      { section: s, name: 'scans made (door and followers\' doors)', value: expected.size, unit: '' },
      { section: s, name: 'followers holding every scan', value: complete, unit: '', target: `${FOLLOWERS}`, ok: complete === FOLLOWERS },
      { section: s, name: 'scans missing at a follower (all followers)', value: missing, unit: '', target: '0', ok: missing === 0 },
      { section: s, name: 'a record twice in one pulled file', value: repeats, unit: '', target: '0', ok: repeats === 0 },
      { section: s, name: 'scans held twice or missing at the central', value: twice + absent, unit: '', target: '0', ok: twice + absent === 0 },
    ];
    return { metrics, scanned: followerNext - input.unscannedFrom };
  } finally {
    await second.stop();
    await db.destroy();
  }
}
