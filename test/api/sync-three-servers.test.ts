import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ADMIN } from '../helpers/server';
import { createTestDatabase, TEST_PG, type TestDatabase } from '../helpers/database';
import { eventually } from '../helpers/eventually';
import { SERVE_ENTRY } from '../helpers/built-app';

const ROOT = path.resolve(__dirname, '..', '..');
const GUESTS = ['Ada', 'Bob', 'Cy', 'Dee', 'Eve', 'Fay'];

interface Server {
  process: ChildProcess;
  baseUrl: string;
  port: number;
  token: string;
}

/** `npm run serve`'s entry point as its own process, so it can be stopped and killed -9. */
function spawnServer(db: string, port = 0): Promise<Omit<Server, 'token'>> {
  const child = spawn(process.execPath, [SERVE_ENTRY], {
    cwd: ROOT,
    env: {
      ...process.env,
      DOORLIST_DB: db,
      DOORLIST_PORT: String(port),
      DOORLIST_HOST: '127.0.0.1',
      DOORLIST_ADMIN_USERNAME: ADMIN.username,
      DOORLIST_ADMIN_PASSWORD: ADMIN.password,
      DOORLIST_LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const match = /Doorlist listening on (http:\/\/\S+:(\d+))/.exec(out);
      if (match) resolve({ process: child, baseUrl: `${match[1]}/api/v1`, port: Number(match[2]) });
    });
    child.stderr!.on('data', (chunk) => (err += chunk));
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before it was ready: ${err}`)));
  });
}

async function start(db: string, port = 0): Promise<Server> {
  const server = await spawnServer(db, port);
  const res = await fetch(`${server.baseUrl}/apps/api/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
  return { ...server, token: ((await res.json()) as { token: string }).token };
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

async function stop(server: Server | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!server || server.process.exitCode !== null || server.process.signalCode !== null) return;
  server.process.kill(signal);
  await exited(server.process);
}

async function call(server: Server, method: string, pathName: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(server.baseUrl + pathName, {
    method,
    headers: { authorization: `Token ${server.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Waits until each laptop has pulled `n` more times (its `last_pull_at` moved on `n` times): `n` ticks of its follower. */
async function pulls(servers: Record<string, Server | undefined>, local: Record<'a' | 'b', number>, n: number): Promise<void> {
  await Promise.all(
    (['a', 'b'] as const).map(async (side) => {
      const seen = new Set<string>();
      const lastPull = async () => (await call(servers[side]!, 'GET', `/events/${local[side]}/sync`)).body.last_pull_at as string | null;
      const from = await lastPull();
      await eventually(`${n} more pulls on ${side}`, async () => {
        const at = await lastPull();
        if (at && at !== from) seen.add(at);
        return seen.size >= n ? true : undefined;
      });
    }),
  );
}

/** Every scan the server holds for the event, by uid: station, guest's barcode, direction. */
async function checkins(server: Server, eventId: number): Promise<Map<string, string>> {
  const res = await call(server, 'GET', `/events/${eventId}/checkins?include_undone=true&page_size=1000`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const out = new Map<string, string>();
  for (const c of res.body.results as { uid: string; station: string; guest_id: number; direction: string }[]) {
    assert.ok(!out.has(c.uid), `check-in ${c.uid} listed twice`);
    out.set(c.uid, `${c.station} ${c.direction}`);
  }
  return out;
}

async function scan(server: Server, eventId: number, name: string, station: string) {
  return call(server, 'POST', `/events/${eventId}/checkins`, { barcode: `CODE-${name.toUpperCase()}`, station });
}

// The central server on SQLite in the SQLite pass; on PostgreSQL in the PostgreSQL pass, when
// DOORLIST_TEST_PG names a server (a fresh database of its own, from the PostgreSQL test harness).
const centrals = TEST_PG
  ? [{ name: 'PostgreSQL', database: createTestDatabase }]
  : [{ name: 'SQLite', database: async (dir: string): Promise<TestDatabase> => ({ setting: path.join(dir, 'central.sqlite'), drop: async () => {} }) }];

for (const central of centrals) {
  describe(`Two laptops following a central Doorlist on ${central.name}`, () => {
    let dir: string;
    let database: TestDatabase | undefined;
    let servers: Record<'central' | 'a' | 'b', Server | undefined> = { central: undefined, a: undefined, b: undefined };

    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-sync-'));
    });
    after(async () => {
      await Promise.all(Object.values(servers).map((s) => stop(s, 'SIGKILL')));
      await database?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('carries scans between laptops, works alone while the central is down, catches up exactly once and names the double admission on both laptops', async () => {
      database = await central.database(dir);
      const centralDb = database.setting;
      servers.central = await start(centralDb);
      const c = servers.central;
      const group = await call(c, 'POST', '/groups', { name: 'Central', email: 'central@door.test' });
      const event = await call(c, 'POST', '/events', { name: 'Synced gala', starts: '2026-12-01T18:00', ends: '2026-12-01T23:30', timezone: 'Europe/Amsterdam', group_id: group.body.id });
      const centralEvent: number = event.body.id;
      const rt = await call(c, 'POST', `/events/${centralEvent}/registration_types`, { type: 'ticket', name: 'Entry', description: 'Door' });
      for (const name of GUESTS) {
        const g = await call(c, 'POST', `/events/${centralEvent}/guests`, { registration_type: rt.body.id, first_name: name, last_name: 'Guest', email: `${name.toLowerCase()}@guests.test`, barcode: `CODE-${name.toUpperCase()}` });
        assert.equal(g.status, 201, JSON.stringify(g.body));
      }
      const key = (await call(c, 'POST', `/groups/${group.body.id}/api_keys`, { name: 'door laptops' })).body.key as string;

      const dbA = path.join(dir, 'a.sqlite');
      [servers.a, servers.b] = await Promise.all([start(dbA), start(path.join(dir, 'b.sqlite'))]);
      const local: Record<'a' | 'b', number> = { a: 0, b: 0 };
      for (const side of ['a', 'b'] as const) {
        const s = servers[side]!;
        const g = await call(s, 'POST', '/groups', { name: `Laptop ${side}`, email: `${side}@door.test` });
        const follow = await call(s, 'POST', '/sync', { url: c.baseUrl, key, event_id: centralEvent, group_id: g.body.id });
        assert.equal(follow.status, 201, JSON.stringify(follow.body));
        local[side] = follow.body.event_id;
      }

      // Online: a scan on A shows on B, and B's scan of that guest is refused.
      const first = await scan(servers.a, local.a, 'Ada', 'Laptop A');
      assert.equal(first.status, 201, JSON.stringify(first.body));
      await eventually('A\'s scan on B', async () => ((await checkins(servers.b!, local.b)).has(first.body.uid) ? true : undefined));
      const again = await scan(servers.b, local.b, 'Ada', 'Laptop B');
      assert.equal(again.status, 409, JSON.stringify(again.body));
      assert.equal(again.body.status, 'already_checked_in');

      // In step first. A merge stamps the door state it moves, and that stamp travels on (B's
      // stamp of Ada comes back to A through the central a tick or two later); a row a laptop
      // pulled waits as one of its own until its next push. So: nothing waiting on either
      // laptop, still nothing three ticks later.
      const inStep = async () => {
        for (const side of ['a', 'b'] as const) {
          await eventually(`${side} in step`, async () => ((await call(servers[side]!, 'GET', `/events/${local[side]}/sync`)).body.pending === 0 ? true : undefined));
        }
      };
      await inStep();
      await pulls(servers, local, 3);
      await inStep();

      // The central goes away: both laptops work alone and say so.
      await stop(servers.central);
      for (const side of ['a', 'b'] as const) {
        await eventually(`${side} offline`, async () => ((await call(servers[side]!, 'GET', `/events/${local[side]}/sync`)).body.state === 'offline' ? true : undefined));
      }
      const made: Record<string, string> = { [first.body.uid]: 'Laptop A in' };
      for (const [side, name] of [['a', 'Bob'], ['a', 'Cy'], ['b', 'Dee'], ['a', 'Eve'], ['b', 'Eve']] as const) {
        const station = `Laptop ${side.toUpperCase()}`;
        const res = await scan(servers[side]!, local[side], name, station);
        assert.equal(res.status, 201, `${station} ${name}: ${JSON.stringify(res.body)}`);
        made[res.body.uid] = `${station} in`;
      }
      const waiting = (await call(servers.a, 'GET', `/events/${local.a}/sync`)).body;
      assert.equal(waiting.state, 'offline');
      // Three scans wait as three (the guest rows they stamp travel with them).
      assert.equal(waiting.pending, 3);

      // Laptop A dies with its changes unsent, and comes back with them still waiting.
      await stop(servers.a, 'SIGKILL');
      servers.a = await start(dbA);
      assert.equal((await call(servers.a, 'GET', `/events/${local.a}/sync`)).body.pending, waiting.pending);

      // The central returns on its address: all three agree, each scan once.
      servers.central = await start(centralDb, c.port);
      const expected = new Map(Object.entries(made));
      await eventually('the same check-ins on all three', async () => {
        const all = await Promise.all([checkins(servers.central!, centralEvent), checkins(servers.a!, local.a), checkins(servers.b!, local.b)]);
        return all.every((m) => m.size === expected.size && [...expected].every(([uid, what]) => m.get(uid) === what)) ? true : undefined;
      });
      for (const side of ['a', 'b'] as const) {
        const status = await eventually(`the double admission on ${side}`, async () => {
          const res = await call(servers[side]!, 'GET', `/events/${local[side]}/sync`);
          return res.body.double_admissions.length > 0 && res.body.pending === 0 ? res.body : undefined;
        });
        assert.equal(status.state, 'ok');
        assert.equal(status.double_admissions.length, 1, JSON.stringify(status.double_admissions));
        const [admission] = status.double_admissions;
        assert.equal(admission.first_name, 'Eve');
        assert.deepEqual(admission.checkins.map((x: { station: string }) => x.station).sort(), ['Laptop A', 'Laptop B']);
        for (const x of admission.checkins) assert.match(x.scanned_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      }
      // Settled: nothing more arrives, nothing is counted twice (two more pulls on each laptop).
      await pulls(servers, local, 2);
      for (const [s, id] of [[servers.central, centralEvent], [servers.a, local.a], [servers.b, local.b]] as const) {
        assert.equal((await checkins(s!, id)).size, expected.size);
      }
      // The central's check-ins are where its setting says: in PostgreSQL itself on that run.
      if (database.setting.startsWith('postgres')) {
        const client = new pg.Client({ connectionString: database.setting });
        await client.connect();
        try {
          const { rows } = await client.query('select uid from checkins where event_id = $1', [centralEvent]);
          assert.deepEqual(rows.map((r: { uid: string }) => r.uid).sort(), [...expected.keys()].sort());
        } finally {
          await client.end();
        }
      }
    });
  });
}
if (!TEST_PG) describe('Two laptops following a central Doorlist on PostgreSQL', () => it.skip('runs in the PostgreSQL pass (npm run test:api:pg)'));
