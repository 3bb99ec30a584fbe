/**
 * Memory figures that need a quiet process of their own and are measured, not asserted: the
 * heap policy against V8's defaults, what scrypt leaves behind in libuv's threads, and the
 * server's resident memory under 20,000 spellings of one key (the auth cache keeps one entry
 * per secret, not per spelling). The rules behind them have their tests (the auth cache's size
 * in test/unit/auth-cache.test.ts); the memory they save is a figure for this page.
 */
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { ROOT, round, type ChildServer, type Log, type Metric } from './common';
import { HEAP_GROWING_PERCENT } from '../server/heap';
import { EVENT_FILE_FORMAT, EVENT_FILE_VERSION } from '../server/event-file/format';

// A gzip bomb is refused "within seconds, in a few hundred MB" (test/api/event-file-bomb.test.ts
// holds the refusal itself).
export const MEMORY_TARGETS = { heapLimitedRatio: 0.7, scryptGrownMb: 24, spellingsGrownMb: 30, bombPeakMb: 300, bombAnswerMs: 10_000 };

/** A fresh process that keeps 50,000 recent objects and replaces them one by one: its old generation's peak, in MB. */
function peakOldSpaceMb(limited: boolean): number {
  const script = `
    const v8 = require('node:v8');
    ${limited ? "require('./server/heap').limitHeapGrowth();" : ''}
    const recent = new Array(50000);
    let peak = 0;
    for (let n = 0; n < 1000000; n++) {
      recent[n % recent.length] = { n, list: [n, n + 1], text: String(n).padEnd(100, '.') };
      if (n % 1000 === 0) peak = Math.max(peak, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size);
    }
    process.stdout.write(String(peak / 1e6));`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return Number(run.stdout);
}

/** Resident memory a fresh process gains over 12 password hashes (8 one by one, 4 at once), in MB. */
function scryptGrownMb(): number {
  const script = `
    const { hashPassword } = require('./server/secrets.ts');
    (async () => {
      await hashPassword('warm');
      const before = process.memoryUsage().rss;
      for (let i = 0; i < 8; i++) await hashPassword('p' + i);
      await Promise.all([1, 2, 3, 4].map((i) => hashPassword('q' + i)));
      process.stdout.write(String((process.memoryUsage().rss - before) / 1048576));
    })();`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return Number(run.stdout);
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** The n-th spelling of `Token <key>`: a different run of spaces and tabs, same key. */
const spelling = (n: number, key: string) => `Token ${n.toString(2).replace(/0/g, ' ').replace(/1/g, '\t')} ${key}${' '.repeat(n % 7)}`;

/** The server's resident memory grown over the second 10,000 of 20,000 spellings of one key, in MB. */
async function spellingsGrownMb(baseUrl: string, key: string, pid: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const get = (authorization: string) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(`${baseUrl}/groups`, { agent, headers: { authorization } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
  const spell = async (from: number, to: number) => {
    for (let n = from; n <= to; n += 8) {
      const statuses = await Promise.all(Array.from({ length: 8 }, (_, i) => get(spelling(n + i, key))));
      if (statuses.some((s) => s !== 200)) throw new Error(`a spelling was refused: ${statuses.join(',')}`);
    }
  };
  try {
    // The heap settles during the first half (buffers, JIT, the logger); a cache keyed by
    // spelling goes on growing by ~9 KB per spelling in the second.
    await spell(1, 10_000);
    const settled = rssMb(pid);
    await spell(10_001, 20_000);
    return rssMb(pid) - settled;
  } finally {
    agent.destroy();
  }
}

/** A valid header line, then `copies` MB of `piece` repeated as concatenated gzip members: about a kilobyte per inflated megabyte. */
function bomb(piece: string, copies: number): Buffer {
  const header = JSON.stringify({
    format: EVENT_FILE_FORMAT,
    version: EVENT_FILE_VERSION,
    station: 'bomb',
    exported_at: '2026-11-23T00:00:00.000Z',
    event: { uid: '00000000-0000-4000-8000-000000000000', name: 'Bomb' },
    tables: ['events'],
    counts: { events: 1 },
    checksum: { algorithm: 'sha256', location: 'trailer', covers: 'every line' },
  });
  const megabyte = zlib.gzipSync(Buffer.alloc(1 << 20, piece), { level: 9 });
  return Buffer.concat([zlib.gzipSync(`${header}\n`), ...Array.from({ length: copies }, () => megabyte)]);
}

/** Two 2 GB bombs (one long line, short lines) sent to the server: the slower answer and the server's peak meanwhile. */
async function bombs(baseUrl: string, token: string, server: ChildServer): Promise<{ answerMs: number; peakMb: number }> {
  server.resetPeakRss();
  let answerMs = 0;
  for (const file of [bomb('a', 2048), bomb('}\n', 2048)]) {
    const started = performance.now();
    const res = await fetch(`${baseUrl}/events/import`, { method: 'POST', headers: { authorization: `Token ${token}`, 'content-type': 'application/gzip' }, body: new Uint8Array(file) });
    await res.arrayBuffer();
    if (res.status !== 400) throw new Error(`a gzip bomb was answered ${res.status}`);
    answerMs = Math.max(answerMs, performance.now() - started);
  }
  return { answerMs, peakMb: server.sectionPeakRssMb() };
}

export async function benchMemory(input: { baseUrl: string; key: string; adminToken: string; server: ChildServer }, log: Log): Promise<Metric[]> {
  const defaults = peakOldSpaceMb(false);
  const limited = peakOldSpaceMb(true);
  const ratio = round(limited / defaults);
  log(`  heap policy: old generation peak ${round(limited, 1)} MB at ${HEAP_GROWING_PERCENT}%, ${round(defaults, 1)} MB with V8's defaults`);
  const scrypt = round(scryptGrownMb(), 1);
  log(`  scrypt: resident memory grew ${scrypt} MB over 12 hashes`);
  const spellings = round(await spellingsGrownMb(input.baseUrl, input.key, input.server.process.pid!), 1);
  log(`  auth cache: server RSS grew ${spellings} MB over the second 10,000 spellings of one key`);
  const bombed = await bombs(input.baseUrl, input.adminToken, input.server);
  const bombMs = Math.round(bombed.answerMs);
  const bombPeak = round(bombed.peakMb, 1);
  log(`  gzip bombs: refused in up to ${bombMs} ms, server peak ${bombPeak} MB meanwhile`);
  return [
    { section: 'memory', name: 'old generation peak, heap policy / V8 defaults', value: ratio, unit: 'ratio', target: `< ${MEMORY_TARGETS.heapLimitedRatio}`, ok: ratio < MEMORY_TARGETS.heapLimitedRatio },
    { section: 'memory', name: 'resident memory grown over 12 password hashes', value: scrypt, unit: 'MB', target: `< ${MEMORY_TARGETS.scryptGrownMb}`, ok: scrypt < MEMORY_TARGETS.scryptGrownMb },
    { section: 'memory', name: 'server RSS grown over 10,000 more spellings of one key', value: spellings, unit: 'MB', target: `< ${MEMORY_TARGETS.spellingsGrownMb}`, ok: spellings < MEMORY_TARGETS.spellingsGrownMb },
    { section: 'memory', name: 'a 2 GB gzip bomb refused in', value: bombMs, unit: 'ms', target: `< ${MEMORY_TARGETS.bombAnswerMs}`, ok: bombMs < MEMORY_TARGETS.bombAnswerMs },
    { section: 'memory', name: 'server peak RSS while refusing gzip bombs', value: bombPeak, unit: 'MB', target: `< ${MEMORY_TARGETS.bombPeakMb}`, ok: bombPeak < MEMORY_TARGETS.bombPeakMb },
  ];
}
