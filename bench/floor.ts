import type { Log, Metric } from './common';
import { round, spawnServer } from './common';
import { drive, type LoadResult } from './load';

// The least any HTTP server on this machine can do per request: read the body, answer JSON.
const FLOOR_SERVER = `
const http = require('node:http');
http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const out = JSON.stringify({ status: 'checked_in', length: body.length });
    res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
    res.end(out);
  });
}).listen(0, '127.0.0.1', function () { console.log('floor listening on http://127.0.0.1:' + this.address().port); });
`;

// The same answer through Express with the JSON body parser and a parameterised route, as
// every Doorlist route is served and as Express's own guide writes an app: what the framework
// alone costs before any of Doorlist's work.
const EXPRESS_FLOOR_SERVER = `
const express = require('express');
const app = express();
app.disable('x-powered-by');
app.use(express.json());
app.post('/api/v1/events/:event_id/checkins', (req, res) => {
  res.status(201).json({ status: 'checked_in', event: req.params.event_id, barcode: req.body.barcode });
});
const server = app.listen(0, '127.0.0.1', () => console.log('floor listening on http://127.0.0.1:' + server.address().port));
`;

/** Guests the plain scan's own database holds: every barcode the load sends. */
const PLAIN_SCAN_GUESTS = 60_000;

// A scan written plainly on the same stack, as Express's and knex's guides show: one knex
// transaction per request that finds the guest by barcode, refuses one already in, sets the
// guest's state and inserts the check-in (RETURNING its id). Its own SQLite file in WAL with
// synchronous=NORMAL, one connection. No scope, no uid memory, no batching, no logging: what
// the stack costs for a scan's few statements, beside which Doorlist's check-in is judged.
const PLAIN_SCAN_SERVER = `
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const express = require('express');
const knex = require('knex');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-plain-scan-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
process.on('SIGTERM', () => process.exit(0));
const db = knex({
  client: 'sqlite3',
  connection: { filename: path.join(dir, 'scan.sqlite') },
  useNullAsDefault: true,
  pool: { min: 1, max: 1, afterCreate: (conn, done) => conn.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;', (err) => done(err, conn)) },
});
async function seed() {
  await db.schema.createTable('guests', (t) => { t.increments('id'); t.integer('event_id').notNullable(); t.string('barcode').notNullable(); t.string('first_name'); t.string('checked_in_at'); t.unique(['event_id', 'barcode']); });
  await db.schema.createTable('checkins', (t) => { t.increments('id'); t.integer('guest_id').notNullable().references('guests.id'); t.string('uid').notNullable().unique(); t.string('station'); t.string('scanned_at').notNullable(); });
  const rows = Array.from({ length: ${PLAIN_SCAN_GUESTS} }, (_, i) => ({ event_id: 1, barcode: 'G' + String(i).padStart(7, '0'), first_name: 'Guest ' + i }));
  await db.batchInsert('guests', rows, 500);
}
const app = express();
app.disable('x-powered-by');
app.use(express.json());
app.post('/api/v1/events/:event_id/checkins', async (req, res, next) => {
  try {
    const answer = await db.transaction(async (trx) => {
      const guest = await trx('guests').where({ event_id: Number(req.params.event_id), barcode: req.body.barcode }).first();
      if (!guest) return [404, { status: 'not_found' }];
      if (guest.checked_in_at) return [409, { status: 'already_checked_in', checked_in_at: guest.checked_in_at }];
      const scannedAt = new Date().toISOString();
      await trx('guests').where({ id: guest.id }).update({ checked_in_at: scannedAt });
      const [{ id }] = await trx('checkins').insert({ guest_id: guest.id, uid: req.body.uid, station: req.body.station, scanned_at: scannedAt }).returning('id');
      return [201, { id, status: 'checked_in', guest: { id: guest.id, first_name: guest.first_name } }];
    });
    res.status(answer[0]).json(answer[1]);
  } catch (err) {
    next(err);
  }
});
seed().then(() => {
  const server = app.listen(0, '127.0.0.1', () => console.log('floor listening on http://127.0.0.1:' + server.address().port));
});
`;

/** Requests one client sends one after another, as the check-in's one sequential scanner. */
const SEQUENTIAL_REQUESTS = 1000;

/**
 * One floor server, in its own process like Doorlist, under the check-in load, then with one
 * client waiting for each answer (the floor of the one-scanner latency).
 */
async function driveFloor(source: string, load: { connections: number; amount: number; warmup: number }): Promise<{ loaded: LoadResult; sequential: LoadResult; peakRssMb: number }> {
  const floor = await spawnServer(['-e', source], {}, /floor listening on (http:\/\/\S+)/);
  try {
    // Each phase its own guests (the plain scan admits a guest once).
    const body = (from: number) => (i: number) => JSON.stringify({ barcode: `G${String(from + i).padStart(7, '0')}`, uid: `floor-${from + i}`, station: 'Bench door' });
    const url = `${floor.url}/api/v1/events/1/checkins`;
    await drive({ url, method: 'POST', body: body(0), connections: load.connections, amount: load.warmup });
    const loaded = await drive({ url, method: 'POST', body: body(load.warmup), connections: load.connections, amount: load.amount, serverCpuMs: floor.cpuMs });
    const sequential = await drive({ url, method: 'POST', body: body(load.warmup + load.amount), connections: 1, amount: SEQUENTIAL_REQUESTS });
    return { loaded, sequential, peakRssMb: round(floor.peakRssMb(), 1) };
  } finally {
    await floor.stop();
  }
}

/** The bare node:http floor the check-in is held against, Express's own floor and a plainly written scan beside it. */
export async function benchFloor(load: { connections: number; amount: number; warmup: number }, log: Log): Promise<{ metrics: Metric[]; result: LoadResult; express: LoadResult; plain: LoadResult }> {
  const { loaded: result, sequential, peakRssMb } = await driveFloor(FLOOR_SERVER, load);
  log(`  floor: ${result.requestsPerSecond} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${result.serverCpuUsPerRequest} µs server CPU per request, peak RSS ${peakRssMb} MB; one client: p50 ${sequential.p50Ms} ms, p99 ${sequential.p99Ms} ms`);
  const { loaded: express, sequential: expressSequential, peakRssMb: expressPeakRssMb } = await driveFloor(EXPRESS_FLOOR_SERVER, load);
  log(`  Express floor: ${express.requestsPerSecond} req/s, p50 ${express.p50Ms} ms, p99 ${express.p99Ms} ms, ${express.serverCpuUsPerRequest} µs server CPU per request, peak RSS ${expressPeakRssMb} MB; one client: p50 ${expressSequential.p50Ms} ms, p99 ${expressSequential.p99Ms} ms`);
  const { loaded: plain, sequential: plainSequential, peakRssMb: plainPeakRssMb } = await driveFloor(PLAIN_SCAN_SERVER, load);
  log(`  plain scan (Express + knex + sqlite3): ${plain.requestsPerSecond} req/s, p50 ${plain.p50Ms} ms, p99 ${plain.p99Ms} ms, ${plain.serverCpuUsPerRequest} µs server CPU per request, peak RSS ${plainPeakRssMb} MB; one client: p50 ${plainSequential.p50Ms} ms, p99 ${plainSequential.p99Ms} ms`);
  return {
    result,
    metrics: [
      { section: 'floor', name: 'bare node:http requests/s', value: result.requestsPerSecond, unit: 'req/s' },
      { section: 'floor', name: 'bare node:http p99', value: result.p99Ms, unit: 'ms' },
      { section: 'floor', name: 'bare node:http server CPU per request', value: result.serverCpuUsPerRequest ?? NaN, unit: 'µs' },
      { section: 'floor', name: 'bare node:http one sequential client p99', value: sequential.p99Ms, unit: 'ms' },
      // The same load's peak memory, no database: what Node and V8's default heap policy take.
      { section: 'floor', name: 'bare node:http peak RSS', value: peakRssMb, unit: 'MB' },
      { section: 'floor', name: 'Express alone requests/s', value: express.requestsPerSecond, unit: 'req/s' },
      { section: 'floor', name: 'Express alone server CPU per request', value: express.serverCpuUsPerRequest ?? NaN, unit: 'µs' },
      { section: 'floor', name: 'Express alone / bare node:http throughput', value: round(express.requestsPerSecond / result.requestsPerSecond), unit: 'ratio' },
      { section: 'floor', name: 'Express alone one sequential client p99', value: expressSequential.p99Ms, unit: 'ms' },
      { section: 'floor', name: 'Express alone peak RSS', value: expressPeakRssMb, unit: 'MB' },
      { section: 'floor', name: 'plain scan (Express + knex + sqlite3) requests/s', value: plain.requestsPerSecond, unit: 'req/s' },
      { section: 'floor', name: 'plain scan p99', value: plain.p99Ms, unit: 'ms' },
      { section: 'floor', name: 'plain scan server CPU per request', value: plain.serverCpuUsPerRequest ?? NaN, unit: 'µs' },
      { section: 'floor', name: 'plain scan one sequential client p99', value: plainSequential.p99Ms, unit: 'ms' },
      { section: 'floor', name: 'plain scan peak RSS', value: plainPeakRssMb, unit: 'MB' },
    ],
    express,
    plain,
  };
}
