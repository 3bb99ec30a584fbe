import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createDb, migrateLatest } from '../../db/knex';
import { MSG } from '../../core/messages';
import { PG_BIN, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster';
import { signIn, startServeProcess, type ServerProcess } from '../helpers/server-process';
import { eventually } from '../helpers/eventually';

const GUESTS = 20_000;
const WORKERS = 8;
const skip = PG_BIN ? false : 'restarting PostgreSQL needs its binaries under /usr/lib/postgresql (apt-get install -y postgresql)';


/** An event with GUESTS guests, written before the server starts; answers its id. */
async function seed(url: string): Promise<number> {
  const db = createDb(url);
  try {
    await migrateLatest(db);
    const now = new Date().toISOString();
    const rec = () => ({ uid: randomUUID(), created: now, modified: now });
    const [group] = await db('groups').insert({ ...rec(), name: 'Restart Events' }).returning('id');
    const [event] = await db('events')
      .insert({ ...rec(), group_id: group.id, name: 'Restart night', starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00', timezone: 'GMT' })
      .returning('id');
    const [type] = await db('registration_types').insert({ ...rec(), event_id: event.id, name: 'General', description: '' }).returning('id');
    for (let i = 0; i < GUESTS; i += 1000) {
      await db('guests').insert(
        Array.from({ length: Math.min(1000, GUESTS - i) }, (_, j) => ({
          ...rec(),
          event_id: event.id,
          registration_type_id: type.id,
          first_name: 'Guest',
          last_name: String(i + j),
          email: `guest${i + j}@restart.test`,
          barcode: `RST-${i + j}`,
        })),
      );
    }
    return event.id;
  } finally {
    await db.destroy();
  }
}

interface Answer {
  uid: string;
  status: number | 'no answer';
  body: unknown;
  sent: number;
}

describe('PostgreSQL restarted under a scan load', { skip }, () => {
  let cluster: PostgresCluster;
  let server: ServerProcess;
  before(async () => {
    cluster = await startPostgresCluster();
  });
  after(async () => {
    await server?.stop();
    await cluster?.remove();
  });

  it('answers 503 (never 500) while it is down, recovers by itself, and keeps every scan answered 201', async () => {
    const eventId = await seed(cluster.url);
    server = await startServeProcess({ DOORLIST_DB: cluster.url });
    const token = await signIn(server.baseUrl);
    const headers = { 'content-type': 'application/json', authorization: `Token ${token}` };
    const url = `${server.baseUrl}/events/${eventId}/checkins`;

    const answers: Answer[] = [];
    let next = 0;
    let stopped = false;
    // Doors scanning without pause, each scan a guest of its own.
    const doors = Array.from({ length: WORKERS }, async (_, door) => {
      while (!stopped && next < GUESTS) {
        const i = next++;
        const uid = `restart-scan-${i}`;
        const sent = Date.now();
        try {
          const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ barcode: `RST-${i}`, uid, station: `Door ${door}` }) });
          answers.push({ uid, status: res.status, body: await res.json(), sent });
        } catch (err) {
          answers.push({ uid, status: 'no answer', body: String(err), sent });
        }
      }
    });
    const until = (what: string, done: () => boolean, ms = 20_000) => eventually(what, () => (done() ? true : undefined), ms, 20);
    const created = (since = 0) => answers.filter((a) => a.status === 201 && a.sent >= since).length;

    try {
      await until('scans before the restart', () => created() >= 100);
      await cluster.stop('immediate');
      const down = Date.now();
      await until('scans answered while PostgreSQL is down', () => answers.filter((a) => a.sent >= down).length >= 50);
      await cluster.start();
      const up = Date.now();
      await until('a scan admitted after the restart', () => created(up) >= 50);
      assert.ok(answers.some((a) => a.sent >= down && a.sent < up && a.status === 503), 'no scan was answered 503 while PostgreSQL was down');
    } finally {
      stopped = true;
      await Promise.all(doors);
    }

    const odd = answers.filter((a) => a.status !== 201 && a.status !== 503);
    assert.deepEqual(odd, [], 'every scan is answered 201 or 503');
    for (const a of answers.filter((a) => a.status === 503)) assert.deepEqual(a.body, { detail: MSG.databaseUnavailable });

    // Every scan answered 201 is stored, with the id it was answered with.
    const stored = new Map<string, number>();
    for (let page = 1; ; page++) {
      const res = await fetch(`${url}?page_size=1000&page=${page}`, { headers });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { next: string | null; results: { id: number; uid: string }[] };
      for (const c of body.results) stored.set(c.uid, c.id);
      if (!body.next) break;
    }
    const admitted = answers.filter((a) => a.status === 201);
    for (const a of admitted) assert.equal(stored.get(a.uid), (a.body as { id: number }).id, `scan ${a.uid} was answered 201 but is gone`);
  });
});
