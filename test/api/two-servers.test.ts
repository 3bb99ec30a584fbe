import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createDb, migrateLatest } from '../../db/knex';
import { signIn, startServeProcess, type ServerProcess } from '../helpers/server-process';
import { CLI_ENTRY } from '../helpers/built-app';

const ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);
const GUESTS = 60;
const SESSION_GUESTS = 20;
const CAPACITY = 5;
const OVERBOOK = 2;
// Small enough that its write (one transaction until the events branch stages imports) stays well
// inside busy_timeout on a loaded machine.
const IMPORTED_GUESTS = 1000;

/** An event with `guests` guests (barcodes `${prefix}-i`) and an auto-registration session, written straight to a database file. */
async function seed(dbFile: string, prefix: string, guests: number): Promise<{ groupId: number; eventId: number; sessionId: number }> {
  const db = createDb(dbFile);
  try {
    await migrateLatest(db);
    const now = new Date().toISOString();
    const rec = () => ({ uid: randomUUID(), created: now, modified: now });
    const [group] = await db('groups').insert({ ...rec(), name: `${prefix} Events` }).returning('id');
    const [event] = await db('events')
      .insert({ ...rec(), group_id: group.id, name: `${prefix} night`, starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00', timezone: 'GMT' })
      .returning('id');
    const [type] = await db('registration_types').insert({ ...rec(), event_id: event.id, name: 'General', description: '' }).returning('id');
    const [session] = await db('sessions')
      .insert({
        ...rec(),
        event_id: event.id,
        name: 'Last seats',
        starts: '2026-12-01T19:00:00',
        ends: '2026-12-01T20:00:00',
        capacity: CAPACITY,
        overbook_capacity: OVERBOOK,
        access_control: true,
        auto_registration: true,
      })
      .returning('id');
    const rows = Array.from({ length: guests }, (_, i) => ({
      ...rec(),
      event_id: event.id,
      registration_type_id: type.id,
      first_name: 'Guest',
      last_name: String(i),
      email: `guest${i}@${prefix.toLowerCase()}.test`,
      barcode: `${prefix}-${i}`,
    }));
    for (let i = 0; i < rows.length; i += 100) await db('guests').insert(rows.slice(i, i + 100));
    return { groupId: group.id, eventId: event.id, sessionId: session.id };
  } finally {
    await db.destroy();
  }
}

async function doorlist(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI_ENTRY, ...args], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('two server processes and the CLI on one SQLite file', () => {
  let dir: string;
  const servers: ServerProcess[] = [];
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-two-'));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('POST /events/:event_id/checkins admits each guest once and fills exactly capacity + overbook seats, no 5xx, while an event file imports', async () => {
    const shared = path.join(dir, 'shared.sqlite');
    const { groupId, eventId, sessionId } = await seed(shared, 'RACE', GUESTS);
    // An event file of another laptop, imported into the shared file while the doors scan.
    const other = path.join(dir, 'other.sqlite');
    const source = await seed(other, 'FILE', IMPORTED_GUESTS);
    const file = path.join(dir, 'other.doorlist.gz');
    const exported = await doorlist(['export', '--event', String(source.eventId), '--out', file, '--db', other]);
    assert.equal(exported.code, 0, exported.stderr);

    // One after the other: two first start-ups racing to create the same administrator is
    // start-up's business (ensureAdmin), not the door's.
    servers.push(await startServeProcess({ DOORLIST_DB: shared }));
    servers.push(await startServeProcess({ DOORLIST_DB: shared }));
    const tokens = await Promise.all(servers.map((s) => signIn(s.baseUrl)));
    const post = async (n: number, body: Record<string, unknown>) => {
      const res = await fetch(`${servers[n].baseUrl}/events/${eventId}/checkins`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Token ${tokens[n]}` },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { status: string; guest_id?: number; uid?: string } };
    };

    // Every guest twice at each server's event door; the session's guests once at each server's session door.
    const doorScans = Array.from({ length: GUESTS }, (_, i) => [0, 1, 0, 1].map((n, k) => ({ n, guest: i, body: { barcode: `RACE-${i}`, uid: `door-${i}-${k}`, station: `Door ${n}` } }))).flat();
    const sessionScans = Array.from({ length: SESSION_GUESTS }, (_, i) => [0, 1].map((n, k) => ({ n, guest: i, body: { barcode: `RACE-${i}`, session_id: sessionId, uid: `session-${i}-${k}`, station: `Hall ${n}` } }))).flat();
    const importing = doorlist(['import', '--in', file, '--group', String(groupId), '--db', shared]);
    const answers = await Promise.all([...doorScans, ...sessionScans].map(async (scan) => ({ ...scan, answer: await post(scan.n, scan.body) })));
    const imported = await importing;
    assert.equal(imported.code, 0, imported.stderr.slice(-300));

    for (const { answer } of answers) assert.ok(answer.status < 500, `a scan answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    const door = answers.slice(0, doorScans.length);
    for (let i = 0; i < GUESTS; i++) {
      const mine = door.filter((a) => a.guest === i);
      assert.equal(mine.filter((a) => a.answer.status === 201).length, 1, `guest ${i} admitted ${mine.filter((a) => a.answer.status === 201).length} times`);
      assert.deepEqual(mine.filter((a) => a.answer.status !== 201).map((a) => a.answer.body.status), ['already_checked_in', 'already_checked_in', 'already_checked_in']);
    }
    const session = answers.slice(doorScans.length);
    const seated = session.filter((a) => a.answer.status === 201);
    assert.equal(seated.length, CAPACITY + OVERBOOK);
    assert.equal(new Set(seated.map((a) => a.guest)).size, CAPACITY + OVERBOOK, 'one seat per guest');
    for (const a of session.filter((s) => s.answer.status !== 201)) assert.ok(['session_full', 'already_checked_in'].includes(a.answer.body.status), a.answer.body.status);

    // Checked through the public API, from either server.
    const headers = { authorization: `Token ${tokens[1]}` };
    const list = (await (await fetch(`${servers[1].baseUrl}/events/${eventId}/checkins?page_size=1000`, { headers })).json()) as { count: number; results: { uid: string; session_id: number | null }[] };
    assert.equal(list.count, GUESTS + CAPACITY + OVERBOOK);
    assert.deepEqual(new Set(list.results.map((c) => c.uid)), new Set(answers.filter((a) => a.answer.status === 201).map((a) => a.answer.body.uid)));
    const stats = (await (await fetch(`${servers[0].baseUrl}/events/${eventId}/stats`, { headers: { authorization: `Token ${tokens[0]}` } })).json()) as {
      checked_in: number;
      sessions: { registered: number; checked_in: number }[];
    };
    assert.equal(stats.checked_in, GUESTS);
    assert.deepEqual(stats.sessions.map((s) => [s.registered, s.checked_in]), [[CAPACITY + OVERBOOK, CAPACITY + OVERBOOK]]);
    // A replay at the other server gets the first answer.
    const first = door.find((a) => a.answer.status === 201)!;
    assert.deepEqual((await post(1 - first.n, first.body)).body, first.answer.body);
    // The import landed whole.
    const createdId = Number(/event (\d+) in group/.exec(imported.stdout)![1]);
    const guests = (await (await fetch(`${servers[0].baseUrl}/events/${createdId}/guests?page_size=1`, { headers: { authorization: `Token ${tokens[0]}` } })).json()) as { count: number };
    assert.equal(guests.count, IMPORTED_GUESTS);
  });
});
