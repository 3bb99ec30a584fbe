/**
 * `npm run bench`: figures, not a pass/fail test. Seeds an event with 100,000 guests through
 * the repositories' bulk insert, starts the real server as its own process, drives it with
 * autocannon and prints a table; bench/results.json keeps the figures.
 *
 * The server runs as shipped: out/main/serve.js, freshly built by electron-vite exactly as
 * `npm run serve` runs it, not under tsx, whose loader thread alone adds ~30 MB of RSS
 * (BENCH_SERVER=tsx runs it under tsx instead). Log level warn: a door laptop's setting;
 * `info` writes a line per request.
 *
 *   npm run bench [-- --guests 100000 --only checkin,sync]
 *   npm run bench -- --db postgres://... [--guests 1000000]          (a central server: bench/central.ts)
 *   npm run bench -- --db postgres://... --only checkin,sync,...     (these sections on PostgreSQL)
 *   BENCH_SERVER_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench   (profile the server)
 *
 * Sections are modules; add one by appending to SECTIONS.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { ROOT, round, spawnServer, type ChildServer, type Log, type Metric } from './common';
import { benchBadges, benchBadgesBeside } from './badges';
import { benchCentral } from './central';
import { benchCentralScale } from './central-scale';
import { benchCheckin, CHECKIN_TARGETS } from './checkin';
import { isPostgresUrl } from '../db/dialect/postgres';
import { eventFilesSection } from './event-files';
import { benchDriverFloor } from './driver-floor';
import { benchFloor } from './floor';
import { benchCsvImport, benchGuestCreate } from './guests';
import { benchImportFloor } from './import-floor';
import { benchMemory } from './memory';
import { benchMergeBeside } from './merge-beside';
import { benchScanBesideReads } from './scan-during-reads';
import { benchSearch } from './search';
import { seedEvent, type Seeded } from './seed';
import { benchSync } from './sync';
import { benchStartup } from './startup';

/** Issue 17: peak RSS with 100k guests under the check-in load. */
export const RSS_CHECKIN_TARGET_MB = 150;
/** Every upload is streamed and capped, so the whole run's peak (imports, exports, sync included) stays bounded. */
export const RSS_BOUND_MB = 400;
const CONNECTIONS = 32;
const ADMIN = { username: 'bench-admin', password: 'bench-admin-password' };

export interface BenchContext {
  server: ChildServer;
  baseUrl: string;
  /** An API key of the event's group, as a door laptop uses. */
  key: string;
  /** The administrator's token. */
  adminToken: string;
  seeded: Seeded;
  /** Guests below this index have been scanned in by an earlier section. */
  scanned: number;
  log: Log;
  /** How the server was started (Node's arguments, environment), to start it again. */
  serverArgs: string[];
  serverEnv: Record<string, string>;
}

export interface Section {
  name: string;
  run(ctx: BenchContext): Promise<Metric[]>;
  /** The section reports its own peak RSS (with a target); otherwise its peak is reported for it. */
  reportsRss?: boolean;
  /** Runs only on PostgreSQL (`--db postgres://...`); skipped, and said so, on SQLite. */
  postgresOnly?: boolean;
}

const SECTIONS: Section[] = [
  {
    name: 'checkin',
    reportsRss: true,
    async run(ctx) {
      const warmup = Math.min(5_000, Math.floor(ctx.seeded.guests * 0.05));
      const amount = Math.min(50_000, Math.floor(ctx.seeded.guests * 0.5));
      const floor = await benchFloor({ connections: CONNECTIONS, amount, warmup }, ctx.log);
      const driverFloor = await benchDriverFloor(ctx.log);
      ctx.server.resetPeakRss();
      const checkin = await benchCheckin(
        { baseUrl: ctx.baseUrl, key: ctx.key, eventId: ctx.seeded.eventId, connections: CONNECTIONS, warmup, amount, serverCpuMs: ctx.server.cpuMs, serverMainThreadCpuMs: ctx.server.mainThreadCpuMs },
        ctx.log,
      );
      ctx.scanned = checkin.scanned;
      const checkinRss = round(ctx.server.sectionPeakRssMb(), 1);
      const ratio = round(checkin.result.requestsPerSecond / floor.result.requestsPerSecond);
      const cpuRatio = round((checkin.result.serverCpuUsPerRequest ?? NaN) / (floor.result.serverCpuUsPerRequest ?? NaN));
      const expressRatio = round((checkin.result.serverCpuUsPerRequest ?? NaN) / (floor.express.serverCpuUsPerRequest ?? NaN));
      const plainRatio = round(checkin.result.requestsPerSecond / floor.plain.requestsPerSecond);
      return [
        ...floor.metrics,
        ...driverFloor,
        ...checkin.metrics,
        {
          section: 'check-in',
          name: 'check-in / plain scan (Express + knex + sqlite3) throughput',
          value: plainRatio,
          unit: 'ratio',
          target: `≥ ${CHECKIN_TARGETS.plainThroughputRatio}`,
          ok: plainRatio >= CHECKIN_TARGETS.plainThroughputRatio,
        },
        {
          section: 'check-in',
          name: 'check-in CPU per scan / Express alone CPU per request',
          value: expressRatio,
          unit: 'ratio',
          target: `≤ ${CHECKIN_TARGETS.expressCpuRatio}`,
          ok: expressRatio <= CHECKIN_TARGETS.expressCpuRatio,
        },
        {
          section: 'check-in',
          name: 'check-in / plain scan, by server CPU per request',
          value: round((floor.plain.serverCpuUsPerRequest ?? NaN) / (checkin.result.serverCpuUsPerRequest ?? NaN)),
          unit: 'ratio',
        },
        { section: 'check-in', name: 'check-in / floor throughput', value: ratio, unit: 'ratio', target: `≥ ${CHECKIN_TARGETS.floorRatio}`, ok: ratio >= CHECKIN_TARGETS.floorRatio },
        // The same comparison in server CPU per request, which other work on a shared machine barely moves.
        {
          section: 'check-in',
          name: 'check-in / floor, by server CPU per request',
          value: round((floor.result.serverCpuUsPerRequest ?? NaN) / (checkin.result.serverCpuUsPerRequest ?? NaN)),
          unit: 'ratio',
        },
        {
          section: 'check-in',
          name: 'check-in CPU per scan / bare handler',
          value: cpuRatio,
          unit: 'ratio',
          target: `≤ ${CHECKIN_TARGETS.cpuRatio}`,
          ok: cpuRatio <= CHECKIN_TARGETS.cpuRatio,
        },
        { section: 'check-in', name: `server peak RSS under check-in load (${ctx.seeded.guests} guests)`, value: checkinRss, unit: 'MB', target: `≤ ${RSS_CHECKIN_TARGET_MB}`, ok: checkinRss <= RSS_CHECKIN_TARGET_MB },
      ];
    },
  },
  {
    name: 'beside',
    async run(ctx) {
      const beside = await benchScanBesideReads({ baseUrl: ctx.baseUrl, key: ctx.key, eventId: ctx.seeded.eventId, unscannedFrom: ctx.scanned }, ctx.log);
      ctx.scanned += beside.scanned;
      // Timestamp deltas have one-second resolution: the next section's delta must not see these scans.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      return beside.metrics;
    },
  },
  {
    name: 'sync',
    async run(ctx) {
      const sync = await benchSync({ baseUrl: ctx.baseUrl, key: ctx.key, eventId: ctx.seeded.eventId, guests: ctx.seeded.guests, unscannedFrom: ctx.scanned, serverCpuMs: ctx.server.cpuMs, serverMainThreadCpuMs: ctx.server.mainThreadCpuMs }, ctx.log);
      ctx.scanned += sync.scanned;
      return sync.metrics;
    },
  },
  {
    name: 'search',
    run: (ctx) => benchSearch({ baseUrl: ctx.baseUrl, key: ctx.key, eventId: ctx.seeded.eventId, guests: ctx.seeded.guests }, ctx.log),
  },
  eventFilesSection,
  {
    name: 'merge-beside',
    async run(ctx) {
      const { seeded } = ctx;
      const input = { baseUrl: ctx.baseUrl, key: ctx.key, adminToken: ctx.adminToken, db: ctx.serverEnv.DOORLIST_DB, groupId: seeded.groupId, eventId: seeded.eventId, guests: seeded.guests, unscannedFrom: ctx.scanned };
      const beside = await benchMergeBeside(input, ctx.log);
      ctx.scanned += beside.scanned;
      return beside.metrics;
    },
  },
  {
    name: 'badges',
    async run(ctx) {
      const badges = await benchBadges({ baseUrl: ctx.baseUrl, key: ctx.key, eventId: ctx.seeded.eventId, unscannedFrom: ctx.scanned, serverCpuMs: ctx.server.cpuMs }, ctx.log);
      ctx.scanned += badges.scanned;
      return badges.metrics;
    },
  },
  {
    name: 'badges-beside',
    async run(ctx) {
      const beside = await benchBadgesBeside({ baseUrl: ctx.baseUrl, key: ctx.key, eventId: ctx.seeded.eventId, unscannedFrom: ctx.scanned }, ctx.log);
      ctx.scanned += beside.scanned;
      return beside.metrics;
    },
  },
  {
    name: 'memory',
    // Reports its own peaks: the gzip bombs' is read alone.
    reportsRss: true,
    run: (ctx) => benchMemory({ baseUrl: ctx.baseUrl, key: ctx.key, adminToken: ctx.adminToken, server: ctx.server }, ctx.log),
  },
  {
    name: 'start-up',
    // A second server on the seeded database beside the running one, started again and again.
    run: (ctx) => benchStartup({ serverArgs: ctx.serverArgs, env: ctx.serverEnv }, ctx.log),
  },
  {
    name: 'guest-create',
    run: (ctx) => benchGuestCreate({ baseUrl: ctx.baseUrl, key: ctx.key, eventId: ctx.seeded.eventId, scanned: ctx.scanned, serverCpuMs: ctx.server.cpuMs }, ctx.log),
  },
  {
    name: 'csv-import',
    async run(ctx) {
      const csv = await benchCsvImport({ baseUrl: ctx.baseUrl, key: ctx.key, eventId: ctx.seeded.eventId, scanned: ctx.scanned, serverCpuMs: ctx.server.cpuMs }, ctx.log);
      ctx.scanned = csv.scanned;
      return csv.metrics;
    },
  },
  {
    name: 'central-scale',
    // A central with two processes on one database and 100 followers: PostgreSQL's case.
    postgresOnly: true,
    async run(ctx) {
      const input = { server: ctx.server, serverArgs: ctx.serverArgs, serverEnv: ctx.serverEnv, adminToken: ctx.adminToken, groupId: ctx.seeded.groupId, eventId: ctx.seeded.eventId, unscannedFrom: ctx.scanned };
      const scale = await benchCentralScale(input, ctx.log);
      ctx.scanned += scale.scanned;
      return scale.metrics;
    },
  },
  {
    name: 'import-floor',
    // In this process, on a database of its own: what SQLite alone takes for the imports'
    // rows. The server is idle meanwhile, so no peak of its own.
    reportsRss: true,
    run: (ctx) => benchImportFloor({ guests: ctx.seeded.guests, log: ctx.log }),
  },
];

/** Builds the app as `npm ci` does and answers the entry `npm run serve` runs. */
function buildServer(): string {
  const built = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'electron-vite'), ['build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('electron-vite build failed');
  return path.join(ROOT, 'out', 'main', 'serve.js');
}

async function post<T>(url: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Token ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

function printTable(metrics: Metric[], log: Log): void {
  const rows = metrics.map((m) => [m.name, `${m.value} ${m.unit}`, m.target ?? '', m.ok === undefined ? '' : m.ok ? 'ok' : 'MISSED']);
  const widths = [0, 1, 2, 3].map((c) => Math.max(...[['figure', 'value', 'target', ''], ...rows].map((r) => r[c].length)));
  const line = (r: string[]) => r.map((cell, c) => cell.padEnd(widths[c])).join('  ').trimEnd();
  log('');
  log(line(['figure', 'value', 'target', '']));
  log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) log(line(r));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { guests: { type: 'string' }, only: { type: 'string' }, db: { type: 'string' } } });
  const guests = Number(values.guests ?? 100_000);
  const only = values.only ? new Set(values.only.split(',')) : undefined;
  const log: Log = (line) => process.stdout.write(`${line}\n`);
  const serverEntry = () => (process.env.BENCH_SERVER === 'tsx' ? ['--import', 'tsx', 'server/serve.ts'] : [buildServer()]);
  const postgres = values.db !== undefined && isPostgresUrl(values.db);
  if (postgres && only && only.has('central') && only.size > 1) throw new Error('--only central runs alone: it seeds its own million guests');
  if (values.db && postgres && (!only || only.has('central'))) {
    // A central Doorlist: its own seeding (many events) and figures, in results-postgres.json.
    const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
    const metrics = await benchCentral({ db: values.db, guests: Number(values.guests ?? 1_000_000), entry: [...flags, ...serverEntry()], log });
    printTable(metrics, log);
    const results = {
      measured_at: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.release()}` },
      load: { connections: CONNECTIONS, guests: Number(values.guests ?? 1_000_000), database: 'PostgreSQL', server_log_level: 'warn' },
      metrics,
    };
    const file = path.join(ROOT, 'bench', 'results-postgres.json');
    fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    log(`\nWritten to ${path.relative(ROOT, file)}`);
    return;
  }
  // The machine's load beside the run: on a shared machine it says how far absolute figures can be read.
  const loadBefore = os.loadavg().map((value) => round(value, 1));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-bench-'));
  // `--db FILE` seeds and serves that SQLite file instead of a temporary one; `--db
  // postgres://... --only guest-create,sync,...` runs those sections on an (empty) PostgreSQL.
  const dbFile = values.db ?? path.join(dir, 'bench.sqlite');
  let server: ChildServer | undefined;
  try {
    log(`Seeding ${guests} guests (bulk insert, not HTTP)...`);
    const seeded = await seedEvent(dbFile, guests, log);
    const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
    const entry = serverEntry();
    const serverArgs = [...flags, ...entry];
    const serverEnv = {
      DOORLIST_DB: dbFile,
      DOORLIST_PORT: '0',
      DOORLIST_HOST: '127.0.0.1',
      DOORLIST_ADMIN_USERNAME: ADMIN.username,
      DOORLIST_ADMIN_PASSWORD: ADMIN.password,
      DOORLIST_LOG_LEVEL: 'warn',
    };
    server = await spawnServer(serverArgs, serverEnv, /Doorlist listening on (http:\/\/\S+)/);
    const baseUrl = `${server.url}/api/v1`;
    const { token } = await post<{ token: string }>(`${baseUrl}/apps/api/auth`, ADMIN);
    const { key } = await post<{ key: string }>(`${baseUrl}/groups/${seeded.groupId}/api_keys`, { name: 'bench door' }, token);
    const ctx: BenchContext = { server, baseUrl, key, adminToken: token, seeded, scanned: 0, log, serverArgs, serverEnv };

    const metrics: Metric[] = [];
    for (const section of SECTIONS) {
      if (only && !only.has(section.name)) continue;
      if (section.postgresOnly && !postgres) {
        log(`${section.name}: skipped (PostgreSQL only: --db postgres://...)`);
        continue;
      }
      log(`${section.name}:`);
      server.resetPeakRss();
      metrics.push(...(await section.run(ctx)));
      // Which load the whole run's peak comes from.
      if (!section.reportsRss) metrics.push({ section: section.name, name: `server peak RSS during ${section.name}`, value: round(server.sectionPeakRssMb(), 1), unit: 'MB' });
    }
    const rss = round(server.peakRssMb(), 1);
    metrics.push({ section: 'server', name: 'server peak RSS over the whole run (VmHWM)', value: rss, unit: 'MB', target: `≤ ${RSS_BOUND_MB}`, ok: rss <= RSS_BOUND_MB });
    printTable(metrics, log);
    const loadAfter = os.loadavg().map((value) => round(value, 1));
    log(`\nload average (1, 5, 15 min): ${loadBefore.join(', ')} at the start, ${loadAfter.join(', ')} at the end`);

    const results = {
      measured_at: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.release()}`, load_average: { start: loadBefore, end: loadAfter } },
      load: {
        connections: CONNECTIONS,
        guests,
        database: postgres ? 'PostgreSQL' : 'SQLite',
        server: process.env.BENCH_SERVER === 'tsx' ? 'tsx server/serve.ts' : 'out/main/serve.js (npm run serve)',
        server_log_level: 'warn',
      },
      metrics,
    };
    // bench/results.json is the record of a whole run; a partial or smaller run goes beside it.
    const complete = !only && guests === 100_000 && !values.db;
    // The central at scale alone has a record of its own, beside PostgreSQL's other sections.
    const scaleAlone = only?.size === 1 && only.has('central-scale');
    const file = path.join(ROOT, 'bench', scaleAlone ? 'results-central-scale.json' : postgres ? 'results-postgres-sections.json' : complete ? 'results.json' : 'results.partial.json');
    fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    log(`\nWritten to ${path.relative(ROOT, file)}`);
  } finally {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
