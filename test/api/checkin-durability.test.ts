import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDb, migrateLatest } from '../../db/knex';
import { signIn, startServeProcess, type ServerProcess } from '../helpers/server-process';

const GUESTS = 400;

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

/** An event with GUESTS guests, written before the server starts. */
async function seed(dbFile: string): Promise<number> {
  const db = createDb(dbFile);
  try {
    await migrateLatest(db);
    const now = new Date().toISOString();
    const rec = () => ({ uid: randomUUID(), created: now, modified: now });
    const [group] = await db('groups').insert({ ...rec(), name: 'Durable Events' }).returning('id');
    const [event] = await db('events')
      .insert({ ...rec(), group_id: group.id, name: 'Kill night', starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00', timezone: 'GMT' })
      .returning('id');
    const [type] = await db('registration_types').insert({ ...rec(), event_id: event.id, name: 'General', description: '' }).returning('id');
    const guests = Array.from({ length: GUESTS }, (_, i) => ({
      ...rec(),
      event_id: event.id,
      registration_type_id: type.id,
      first_name: 'Guest',
      last_name: String(i),
      email: `guest${i}@durable.test`,
      barcode: `DUR-${i}`,
    }));
    for (let i = 0; i < guests.length; i += 100) await db('guests').insert(guests.slice(i, i + 100));
    return event.id;
  } finally {
    await db.destroy();
  }
}

describe('POST /events/:event_id/checkins durability', () => {
  let dir: string;
  let server: ServerProcess | undefined;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-kill-'));
  });
  after(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await exited(server.child);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every scan answered 201 when the server is killed -9 right after answering', async () => {
    const dbFile = path.join(dir, 'door.sqlite');
    const eventId = await seed(dbFile);
    server = await startServeProcess({ DOORLIST_DB: dbFile });
    const token = await signIn(server.baseUrl);
    const headers = { 'content-type': 'application/json', authorization: `Token ${token}` };

    const accepted = new Map<string, { id: number }>();
    let killed = false;
    const killServer = () => {
      if (killed) return;
      killed = true;
      server!.child.kill('SIGKILL');
    };
    const url = `${server.baseUrl}/events/${eventId}/checkins`;
    // A burst of scans, each a different guest; the server dies as soon as answers come back.
    const burst = Array.from({ length: GUESTS }, async (_, i) => {
      const uid = `kill-scan-${i}`;
      try {
        const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ barcode: `DUR-${i}`, uid, station: 'Door 1' }) });
        const body = (await res.json()) as { id: number };
        if (res.status === 201) accepted.set(uid, body);
        if (accepted.size >= 25) killServer();
      } catch {
        // Connection torn down by the kill: the scan was never answered, so it promises nothing.
      }
    });
    await Promise.all(burst);
    killServer();
    await exited(server.child);
    assert.equal(server.child.signalCode, 'SIGKILL');
    assert.ok(accepted.size >= 25, `only ${accepted.size} scans were answered before the kill`);

    server = await startServeProcess({ DOORLIST_DB: dbFile });
    const token2 = await signIn(server.baseUrl);
    const list = await fetch(`${server.baseUrl}/events/${eventId}/checkins?page_size=1000`, { headers: { authorization: `Token ${token2}` } });
    assert.equal(list.status, 200);
    const page = (await list.json()) as { count: number; results: { id: number; uid: string }[] };
    const stored = new Map(page.results.map((c) => [c.uid, c.id]));
    for (const [uid, body] of accepted) assert.equal(stored.get(uid), body.id, `scan ${uid} was answered 201 but is gone`);
    // Whatever else got in was committed whole: one check-in per guest at most, never a torn one.
    assert.ok(page.count >= accepted.size && page.count <= GUESTS);
  });
});
