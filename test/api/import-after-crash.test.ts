import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { createDb, migrateLatest, type Db } from '../../db/knex';
import { exportEventToPath } from '../../server/event-file';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { signIn, startServeProcess, type ServerProcess } from '../helpers/server-process';

// Five batches of 2,000 (no door at work): killed once the first is staged, before the last.
const GUESTS = 10_000;
// Both processes take an import silent this long for dead (10 s when shipped; importAbandonedMs).
const ABANDONED = { DOORLIST_IMPORT_ABANDONED_MS: '5000' };

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

/** An event file of GUESTS guests, exported from a database of its own; answers the event's uid. */
async function writeEventFile(dbFile: string, file: string): Promise<string> {
  const db = createDb(dbFile);
  try {
    await migrateLatest(db);
    const now = new Date().toISOString();
    const rec = () => ({ uid: randomUUID(), created: now, modified: now });
    const [group] = await db('groups').insert({ ...rec(), name: 'Crash Events' }).returning('id');
    const [{ id: eventId }] = await db('events')
      .insert({ ...rec(), group_id: group.id, name: 'Crash night', starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00', timezone: 'GMT' })
      .returning('id');
    const [type] = await db('registration_types').insert({ ...rec(), event_id: eventId, name: 'General', description: '' }).returning('id');
    const guests = Array.from({ length: GUESTS }, (_, i) => ({
      ...rec(),
      event_id: eventId,
      registration_type_id: type.id,
      first_name: 'Guest',
      last_name: `Number ${i}`,
      email: `guest${i}@crash.test`,
      barcode: `CRASH-${i}`,
    }));
    for (let i = 0; i < guests.length; i += 500) await db('guests').insert(guests.slice(i, i + 500));
    const event = await db('events').where({ id: eventId }).first();
    await exportEventToPath(db, event, file);
    return event.uid as string;
  } finally {
    await db.destroy();
  }
}

function importFile(server: ServerProcess, token: string, body: Buffer): Promise<Response> {
  return fetch(`${server.baseUrl}/events/import`, { method: 'POST', headers: { 'content-type': 'application/gzip', authorization: `Token ${token}` }, body: new Uint8Array(body) });
}

/** Guests staged under a hidden event (an import under way, or one a crash left). */
async function stagedGuests(db: Db): Promise<number> {
  const [{ n }] = await db('guests').join('events', 'events.id', 'guests.event_id').whereNotNull('events.importing_since').count({ n: '*' });
  return Number(n);
}

describe('an import interrupted by a crash', () => {
  let dir: string;
  let server: ServerProcess | undefined;
  let db: Db | undefined;
  let database: TestDatabase | undefined;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-import-crash-'));
  });
  after(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await exited(server.child);
    }
    await db?.destroy();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('never blocks the next: after kill -9 mid-import and a restart, the same file is imported once, after the dead import is found abandoned', async () => {
    const file = path.join(dir, 'crash.doorlist.gz');
    const uid = await writeEventFile(path.join(dir, 'origin.sqlite'), file);
    const body = fs.readFileSync(file);
    fs.mkdirSync(path.join(dir, 'laptop'));
    // The laptop's database: a SQLite file, or PostgreSQL under DOORLIST_TEST_PG.
    database = await createTestDatabase(path.join(dir, 'laptop'));

    server = await startServeProcess({ DOORLIST_DB: database.setting, ...ABANDONED });
    db = createDb(database.setting);
    const killed = server;
    // Its answer never comes: the process dies under it.
    const interrupted = importFile(killed, await signIn(killed.baseUrl), body).catch(() => undefined);
    // Killed once part of the file is staged, while the import is still writing.
    while ((await stagedGuests(db)) < 2000) await setTimeout(20);
    killed.child.kill('SIGKILL');
    await exited(killed.child);
    await interrupted;
    const left = await stagedGuests(db);
    assert.ok(left > 0 && left < GUESTS, `${left} guests left staged`);
    assert.equal((await db('events').where({ uid }).first()).importing_since === null, false);

    server = await startServeProcess({ DOORLIST_DB: database.setting, ...ABANDONED });
    // Answered once the dead import's stamp goes stale (ABANDONED), not 409 after the whole wait.
    const res = await importFile(server, await signIn(server.baseUrl), body);
    assert.equal(res.status, 201, await res.text());

    const events = await db('events').where({ uid });
    assert.equal(events.length, 1);
    assert.equal(events[0].importing_since, null);
    const [{ n: guests }] = await db('guests').where({ event_id: events[0].id }).count({ n: '*' });
    assert.equal(Number(guests), GUESTS);
    // What the crash left is gone: no hidden event, no guest but the event's own.
    assert.equal((await db('events').whereNotNull('importing_since')).length, 0);
    const [{ n: all }] = await db('guests').count({ n: '*' });
    assert.equal(Number(all), GUESTS);
  });
});
