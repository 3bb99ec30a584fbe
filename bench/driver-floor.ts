import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { percentile, round, type Log, type Metric } from './common';

/**
 * The least one scan can cost through node-sqlite3, the driver the server uses (issue 17's
 * floor for the one-scanner p99): a scan alone is one write transaction of eight statements
 * (BEGIN IMMEDIATE; its event, its uid's earlier answer, its guest; the check-in, the guest's
 * state, the remembered answer; COMMIT), each a round trip from the main thread to a libuv
 * worker thread and back. Here the same eight, trivial and prepared once (node-sqlite3's
 * Statement; knex prepares each statement it sends), on a file opened as the server opens it,
 * one transaction after another with nothing else to do: no HTTP, no knex, no Doorlist. A scan
 * can be no faster than this on this machine.
 * Then the batched floor (BATCH, below) on the same file.
 */

const TRANSACTIONS = 3000;
const WARMUP = 300;
/**
 * The other floor, for check-in's CPU per scan under 32 connections: the statements for 32
 * scans a transaction, the most group commit can gather from 32 connections, so SQLite's and
 * the driver's work is shared as widely as it can be. Sent as the server sends them (the reads
 * together, the writes together), but simpler than its: four bare tables, no registration-type
 * join, no ids read beforehand, a plain update where the server compares and sets. A floor.
 */
const BATCH = 32;
const BATCHES = 300;

type Statement = sqlite3.Statement;

function step(statement: Statement, method: 'all' | 'run', params: unknown[]): Promise<void> {
  return new Promise((resolve, reject) => statement[method](params, (err: Error | null) => (err ? reject(err) : resolve())));
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
}

function prepareStatement(db: sqlite3.Database, sql: string): Promise<Statement> {
  return new Promise((resolve, reject) => {
    const statement = db.prepare(sql, (err) => (err ? reject(err) : resolve(statement)));
  });
}

/** One scan's eight statements, one after another, as a door laptop's one scanner sends them. */
export async function benchDriverFloor(log: Log): Promise<Metric[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-driver-floor-'));
  const db = new sqlite3.Database(path.join(dir, 'floor.sqlite'));
  const prepared: Statement[] = [];
  const prepare = async (sql: string) => {
    const statement = await prepareStatement(db, sql);
    prepared.push(statement);
    return statement;
  };
  try {
    await exec(db, 'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
    await exec(
      db,
      `CREATE TABLE events (id INTEGER PRIMARY KEY, name TEXT);
       CREATE TABLE guests (id INTEGER PRIMARY KEY, barcode TEXT UNIQUE, checked_in_at TEXT);
       CREATE TABLE checkins (id INTEGER PRIMARY KEY, uid TEXT UNIQUE, guest_id INTEGER REFERENCES guests (id), scanned_at TEXT);
       CREATE TABLE scan_replies (id INTEGER PRIMARY KEY, uid TEXT UNIQUE, body TEXT);
       INSERT INTO events (id, name) VALUES (1, 'Driver floor');
       WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${WARMUP + TRANSACTIONS + (BATCHES + 10) * BATCH})
       INSERT INTO guests (id, barcode) SELECT i, 'G' || i FROM n;`,
    );
    const s = {
      begin: await prepare('BEGIN IMMEDIATE'),
      event: await prepare('SELECT * FROM events WHERE id = ?'),
      earlier: await prepare('SELECT body FROM scan_replies WHERE uid = ? UNION ALL SELECT NULL FROM checkins WHERE uid = ?'),
      guest: await prepare('SELECT * FROM guests WHERE barcode = ?'),
      checkin: await prepare('INSERT INTO checkins (uid, guest_id, scanned_at) VALUES (?, ?, ?) RETURNING id'),
      state: await prepare('UPDATE guests SET checked_in_at = ? WHERE id = ? AND checked_in_at IS NULL'),
      reply: await prepare('INSERT INTO scan_replies (uid, body) VALUES (?, ?)'),
      commit: await prepare('COMMIT'),
    };
    const scan = async (i: number) => {
      const uid = `floor-${i}`;
      const now = new Date().toISOString();
      await step(s.begin, 'run', []);
      await step(s.event, 'all', [1]);
      await step(s.earlier, 'all', [uid, uid]);
      await step(s.guest, 'all', [`G${i}`]);
      await step(s.checkin, 'all', [uid, i, now]);
      await step(s.state, 'run', [now, i]);
      await step(s.reply, 'run', [uid, JSON.stringify({ status: 'checked_in', guest_id: i })]);
      await step(s.commit, 'run', []);
    };
    for (let i = 1; i <= WARMUP; i++) await scan(i);
    const times: number[] = [];
    const cpuBefore = process.cpuUsage();
    for (let i = WARMUP + 1; i <= WARMUP + TRANSACTIONS; i++) {
      const started = performance.now();
      await scan(i);
      times.push(performance.now() - started);
    }
    const cpu = process.cpuUsage(cpuBefore);
    times.sort((a, b) => a - b);
    const p50 = round(percentile(times, 50));
    const p99 = round(percentile(times, 99));
    const cpuUs = Math.round((cpu.user + cpu.system) / TRANSACTIONS);
    log(`  node-sqlite3 alone, a scan's 8 statements: p50 ${p50} ms, p99 ${p99} ms, ${cpuUs} µs CPU each (${TRANSACTIONS} transactions, one after another)`);

    const list = Array.from({ length: BATCH }, () => '?').join(', ');
    const b = {
      earlier: await prepare(`SELECT body FROM scan_replies WHERE uid IN (${list}) UNION ALL SELECT NULL FROM checkins WHERE uid IN (${list})`),
      guests: await prepare(`SELECT * FROM guests WHERE barcode IN (${list})`),
      checkins: await prepare(`INSERT INTO checkins (uid, guest_id, scanned_at) VALUES ${Array.from({ length: BATCH }, () => '(?, ?, ?)').join(', ')} RETURNING id`),
      state: await prepare(`UPDATE guests SET checked_in_at = ? WHERE id IN (${list}) AND checked_in_at IS NULL`),
      replies: await prepare(`INSERT INTO scan_replies (uid, body) VALUES ${Array.from({ length: BATCH }, () => '(?, ?)').join(', ')}`),
    };
    let next = WARMUP + TRANSACTIONS + 1;
    const batch = async () => {
      const ids = Array.from({ length: BATCH }, () => next++);
      const uids = ids.map((i) => `floor-${i}`);
      const now = new Date().toISOString();
      await step(s.begin, 'run', []);
      await Promise.all([step(s.event, 'all', [1]), step(b.earlier, 'all', [...uids, ...uids]), step(b.guests, 'all', ids.map((i) => `G${i}`))]);
      await Promise.all([
        step(b.checkins, 'all', ids.flatMap((i, k) => [uids[k], i, now])),
        step(b.state, 'run', [now, ...ids]),
        step(b.replies, 'run', ids.flatMap((i, k) => [uids[k], JSON.stringify({ status: 'checked_in', guest_id: i })])),
      ]);
      await step(s.commit, 'run', []);
    };
    for (let i = 0; i < 10; i++) await batch();
    const batchCpuBefore = process.cpuUsage();
    for (let i = 0; i < BATCHES; i++) await batch();
    const batchCpu = process.cpuUsage(batchCpuBefore);
    const batchCpuUs = Math.round((batchCpu.user + batchCpu.system) / (BATCHES * BATCH));
    log(`  node-sqlite3 alone, ${BATCH} scans a transaction: ${batchCpuUs} µs CPU a scan (${BATCHES} transactions)`);
    return [
      { section: 'floor', name: "node-sqlite3 alone, a scan's 8 statements p50", value: p50, unit: 'ms' },
      { section: 'floor', name: "node-sqlite3 alone, a scan's 8 statements p99", value: p99, unit: 'ms' },
      { section: 'floor', name: "node-sqlite3 alone, a scan's 8 statements CPU", value: cpuUs, unit: 'µs' },
      { section: 'floor', name: `node-sqlite3 alone, ${BATCH} scans a transaction, CPU a scan`, value: batchCpuUs, unit: 'µs' },
    ];
  } finally {
    // SQLite closes no connection with statements left unfinalized.
    for (const statement of prepared) await new Promise<void>((resolve) => statement.finalize(() => resolve()));
    await new Promise<void>((resolve) => db.close(() => resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
