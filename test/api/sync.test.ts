import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../server/config';
import { createLogger } from '../../server/logger';
import { startServer, type RunningServer } from '../../server/start';
import { MSG } from '../../core/messages';
import { ADMIN, TestServer } from '../helpers/server';
import { createApiKey, createEvent, createGroup, createRoleKey, createUser } from '../helpers/fixtures';
import { eventually } from '../helpers/eventually';

const GZIP = { 'content-type': 'application/gzip' };

async function seedUpstream(central: TestServer) {
  const groupId = await createGroup(central, { name: 'Central box office' });
  const eventId = await createEvent(central, groupId, { name: 'Followed gala' });
  const rt = await central.post(`/events/${eventId}/registration_types`, { type: 'ticket', name: 'Entry', description: 'Door' });
  assert.equal(rt.status, 201, JSON.stringify(rt.body));
  for (const name of ['Ada', 'Bob']) {
    const res = await central.post(`/events/${eventId}/guests`, {
      registration_type: rt.body.id,
      first_name: name,
      last_name: 'Guest',
      email: `${name.toLowerCase()}@guests.test`,
      barcode: `CODE-${name.toUpperCase()}`,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
  return { groupId, eventId, key: await createApiKey(central, groupId, 'laptop sync') };
}

/** A port nothing listens on: taken from the OS, then let go. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('POST /sync', () => {
  let central: TestServer;
  let laptop: TestServer;
  let upstream: { groupId: number; eventId: number; key: string };
  let laptopGroup: number;

  before(async () => {
    [central, laptop] = await Promise.all([TestServer.start(), TestServer.start()]);
    upstream = await seedUpstream(central);
    laptopGroup = await createGroup(laptop, { name: 'Side door' });
  });
  after(async () => {
    await Promise.all([central.stop(), laptop.stop()]);
  });

  it('answers 400 with every missing field', async () => {
    const res = await laptop.post('/sync', {});
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { url: [MSG.required], key: [MSG.required], event_id: [MSG.required] });
  });

  it('answers 400 on an address that is not http(s)', async () => {
    const res = await laptop.post('/sync', { url: 'ftp://central/api/v1', key: 'k', event_id: 1 });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { url: [MSG.syncUrlScheme] });
  });

  it('answers 400 on url when the upstream does not answer, and writes nothing', async () => {
    const res = await laptop.post('/sync', { url: `http://127.0.0.1:${await closedPort()}/api/v1`, key: upstream.key, event_id: upstream.eventId, group_id: laptopGroup });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { url: [MSG.syncUnreachable('ECONNREFUSED')] });
    assert.deepEqual((await laptop.get('/sync')).body.results, []);
  });

  it('answers 400 on key when the upstream refuses it', async () => {
    const res = await laptop.post('/sync', { url: central.baseUrl, key: 'dl_not-a-key', event_id: upstream.eventId, group_id: laptopGroup });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { key: [MSG.syncKeyRefused] });
  });

  it('answers 400 on event_id when the upstream has no such event for the key', async () => {
    const res = await laptop.post('/sync', { url: central.baseUrl, key: upstream.key, event_id: 99999, group_id: laptopGroup });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { event_id: [MSG.syncEventNotFound] });
  });

  it('answers 201 {event_id, sync_id} with the event pulled whole, same uids; a second follow answers 409', async () => {
    const res = await laptop.post('/sync', { url: central.baseUrl, key: upstream.key, event_id: upstream.eventId, group_id: laptopGroup });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ['event_id', 'sync_id']);
    const uids = async (server: TestServer, eventId: number) =>
      (await server.db('guests').where({ event_id: eventId }).orderBy('uid').select('uid')).map((g) => g.uid);
    assert.deepEqual(await uids(laptop, res.body.event_id), await uids(central, upstream.eventId));
    const local = await laptop.db('events').where({ id: res.body.event_id }).first();
    const remote = await central.db('events').where({ id: upstream.eventId }).first();
    assert.equal(local.uid, remote.uid);
    assert.equal(local.group_id, laptopGroup);

    const again = await laptop.post('/sync', { url: central.baseUrl, key: upstream.key, event_id: upstream.eventId, group_id: laptopGroup });
    assert.equal(again.status, 409);
    assert.deepEqual(again.body, { detail: MSG.syncAlreadyFollowed });
  });
});

describe('POST /sync without group_id', () => {
  it("puts an administrator's new copy into the upstream event's own group, made here", async () => {
    const [central, laptop] = await Promise.all([TestServer.start(), TestServer.start()]);
    try {
      const upstream = await seedUpstream(central);
      const res = await laptop.post('/sync', { url: central.baseUrl, key: upstream.key, event_id: upstream.eventId });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const local = await laptop.db('events as e').join('groups as g', 'g.id', 'e.group_id').where('e.id', res.body.event_id).first('g.uid', 'g.name');
      const remote = await central.db('groups').where({ id: upstream.groupId }).first('uid', 'name');
      assert.deepEqual(local, remote);
    } finally {
      await Promise.all([central.stop(), laptop.stop()]);
    }
  });
});

describe('GET /events/:event_id/sync, GET /sync, DELETE /events/:event_id/sync', () => {
  let central: TestServer;
  let laptop: TestServer;
  let upstream: { groupId: number; eventId: number; key: string };
  let eventId: number;
  let syncId: number;

  before(async () => {
    [central, laptop] = await Promise.all([TestServer.start(), TestServer.start()]);
    upstream = await seedUpstream(central);
    const group = await createGroup(laptop, { name: 'Side door' });
    const res = await laptop.post('/sync', { url: central.baseUrl, key: upstream.key, event_id: upstream.eventId, group_id: group });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    ({ event_id: eventId, sync_id: syncId } = res.body);
  });
  after(async () => {
    await Promise.all([central.stop(), laptop.stop()]);
  });

  it('answers the state, never the key', async () => {
    const res = await eventually('a first push', async () => {
      const status = await laptop.get(`/events/${eventId}/sync`);
      return status.body.last_push_at ? status : undefined;
    });
    assert.equal(res.status, 200);
    const { last_pull_at, last_push_at, ...rest } = res.body;
    assert.match(last_pull_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    assert.match(last_push_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    assert.deepEqual(rest, {
      sync_id: syncId,
      url: central.baseUrl,
      event_id: eventId,
      remote_event_id: upstream.eventId,
      state: 'ok',
      error: null,
      fingerprint: null,
      pending: 0,
      double_admissions_count: 0,
      conflicts_count: 0,
      double_admissions: [],
      conflicts: [],
      // The venue (issue 47): a first follow, and no laptop of it on a LAN.
      epoch: 1,
      venue: [],
      venue_note: null,
    });
    const list = await laptop.get('/sync');
    assert.equal(list.status, 200);
    assert.equal(list.body.count, 1);
    assert.equal(list.body.results[0].sync_id, syncId);
    assert.ok(!JSON.stringify(list.body).includes(upstream.key));
    assert.ok(!JSON.stringify(res.body).includes(upstream.key));
  });

  it('shows a scan made upstream here, and a scan made here upstream', async () => {
    const scan = await central.post(`/events/${upstream.eventId}/checkins`, { barcode: 'CODE-ADA', station: 'central door' });
    assert.equal(scan.status, 201, JSON.stringify(scan.body));
    await eventually('the central scan on the laptop', async () => ((await laptop.db('checkins').where({ uid: scan.body.uid }).first()) ? true : undefined));
    const refused = await laptop.post(`/events/${eventId}/checkins`, { barcode: 'CODE-ADA', station: 'side door' });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.status, 'already_checked_in');

    const mine = await laptop.post(`/events/${eventId}/checkins`, { barcode: 'CODE-BOB', station: 'side door' });
    assert.equal(mine.status, 201, JSON.stringify(mine.body));
    await eventually('the laptop scan upstream', async () => ((await central.db('checkins').where({ uid: mine.body.uid }).first()) ? true : undefined));
  });

  it('carries a rename of the event upstream, alone in its delta', async () => {
    const event = (await central.get(`/events/${upstream.eventId}`)).body;
    const renamed = await central.put(`/events/${upstream.eventId}`, { name: 'Followed gala (moved indoors)', starts: event.starts, ends: event.ends, timezone: event.timezone, group_id: upstream.groupId });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    await eventually('the new name here', async () => ((await laptop.get(`/events/${eventId}`)).body.name === 'Followed gala (moved indoors)' ? true : undefined));
  });

  it('carries an undo and a walk-in from the laptop, and a guest edit from upstream', async () => {
    const uidOf = async (server: TestServer, table: string, id: number) => (await server.db(table).where({ id }).first()).uid as string;
    const rt = await laptop.db('registration_types').where({ event_id: eventId }).first();
    const walkIn = await laptop.post(`/events/${eventId}/guests`, { registration_type: rt.id, first_name: 'Walk', last_name: 'In', email: 'walk@in.test', barcode: 'CODE-WALKIN' });
    assert.equal(walkIn.status, 201, JSON.stringify(walkIn.body));
    const walkInUid = await uidOf(laptop, 'guests', walkIn.body.id);
    const scan = await laptop.post(`/events/${eventId}/checkins`, { barcode: 'CODE-WALKIN', station: 'side door' });
    assert.equal(scan.status, 201, JSON.stringify(scan.body));
    assert.equal((await laptop.delete(`/events/${eventId}/checkins/${scan.body.id}`)).status, 204);
    const arrived = await eventually('the walk-in upstream', async () => (await central.db('guests').where({ uid: walkInUid }).first()) ?? undefined);
    assert.equal(arrived.event_id, upstream.eventId);
    await eventually('the undone scan upstream', async () => ((await central.db('checkins').where({ uid: scan.body.uid }).first())?.undone_at ? true : undefined));
    assert.equal((await central.db('guests').where({ uid: walkInUid }).first()).checked_in_at, null);

    const ada = await central.db('guests').where({ event_id: upstream.eventId, barcode: 'CODE-ADA' }).first();
    const edit = await central.put(`/events/${upstream.eventId}/guests/${ada.id}`, { company: 'Analytical Engines' });
    assert.equal(edit.status, 200, JSON.stringify(edit.body));
    await eventually('the edit on the laptop', async () => ((await laptop.db('guests').where({ uid: ada.uid }).first()).company === 'Analytical Engines' ? true : undefined));
  });

  it('lets door keys and door users of the event\'s group read it (the door screen\'s chip); another group gets the 404 of an unknown event', async () => {
    const groupId = (await laptop.db('events').where({ id: eventId }).first()).group_id as number;
    const manager = await laptop.get(`/events/${eventId}/sync`);
    assert.equal(manager.status, 200);
    const doorKey = await createRoleKey(laptop, groupId, 'door');
    const doorUser = (await createUser(laptop, groupId, 'door')).token;
    for (const token of [doorKey, doorUser]) {
      const res = await laptop.get(`/events/${eventId}/sync`, { token });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body).sort(), Object.keys(manager.body).sort());
      assert.equal(res.body.event_id, eventId);
      assert.equal(res.body.state, 'ok');
      assert.ok(Array.isArray(res.body.double_admissions));
      assert.ok(!JSON.stringify(res.body).includes(upstream.key));
    }
    const otherGroup = await createGroup(laptop, { name: 'Other organiser' });
    const unknown = await laptop.get(`/events/999999/sync`);
    for (const token of [await createRoleKey(laptop, otherGroup, 'door'), (await createUser(laptop, otherGroup, 'door')).token]) {
      const res = await laptop.get(`/events/${eventId}/sync`, { token });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, unknown.body);
      assert.deepEqual(res.body, { detail: MSG.syncNotFound });
    }
    // Reading is all a door may do here: unfollowing stays with managers.
    assert.equal((await laptop.delete(`/events/${eventId}/sync`, { token: doorKey })).status, 403);
  });

  it('answers 404 for an event that is not followed', async () => {
    const group = await createGroup(laptop, { name: 'Unfollowed' });
    const other = await createEvent(laptop, group);
    for (const method of ['GET', 'DELETE']) {
      const res = await laptop.request(method, `/events/${other}/sync`);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.syncNotFound });
    }
  });

  it('answers 204 on DELETE, stops following, and keeps the data', async () => {
    const before = (await laptop.get(`/events/${eventId}/guests`)).body.count;
    const res = await laptop.delete(`/events/${eventId}/sync`);
    assert.equal(res.status, 204);
    assert.deepEqual((await laptop.get(`/events/${eventId}/sync`)).body, { detail: MSG.syncNotFound });
    assert.deepEqual((await laptop.get('/sync')).body.results, []);
    assert.equal((await laptop.get(`/events/${eventId}/guests`)).body.count, before);
    const scan = await central.post(`/events/${upstream.eventId}/checkins`, { barcode: 'CODE-ADA', station: 'central door', direction: 'out' });
    assert.equal(scan.status, 201, JSON.stringify(scan.body));
    // Nothing may arrive: three more ticks of the follower give a stray pull every chance.
    const ticks = laptop.running.follower.ticks;
    await eventually('three follower ticks', () => (laptop.running.follower.ticks >= ticks + 3 ? true : undefined));
    assert.equal(await laptop.db('checkins').where({ uid: scan.body.uid }).first(), undefined);
  });
});

describe('A write on a following laptop', () => {
  it('is pushed at once, not at the next tick of the follower (here a minute away)', async () => {
    const central = await TestServer.start();
    const laptop = await TestServer.start({}, { syncIntervalMs: 60_000 });
    try {
      const upstream = await seedUpstream(central);
      const group = await createGroup(laptop, { name: 'Side door' });
      const follow = await laptop.post('/sync', { url: central.baseUrl, key: upstream.key, event_id: upstream.eventId, group_id: group });
      assert.equal(follow.status, 201, JSON.stringify(follow.body));
      const scan = await laptop.post(`/events/${follow.body.event_id}/checkins`, { barcode: 'CODE-BOB', station: 'side door' });
      assert.equal(scan.status, 201, JSON.stringify(scan.body));
      // Within eventually's limit (20 s), well before the follower's next tick.
      await eventually('the laptop scan upstream', async () => ((await central.db('checkins').where({ uid: scan.body.uid }).first()) ? true : undefined));
      // A refused scan writes nothing and starts no push: the central still has one check-in.
      const again = await laptop.post(`/events/${follow.body.event_id}/checkins`, { barcode: 'CODE-BOB', station: 'side door' });
      assert.equal(again.status, 409);
      assert.equal((await central.db('checkins').where({ event_id: upstream.eventId })).length, 1);
    } finally {
      await Promise.all([central.stop(), laptop.stop()]);
    }
  });
});

describe('An event file imported on a following laptop', () => {
  it('sends its check-ins on to the central, however long ago they were made', async () => {
    const [central, laptop, other] = await Promise.all([TestServer.start(), TestServer.start(), TestServer.start()]);
    try {
      const upstream = await seedUpstream(central);
      const group = await createGroup(laptop, { name: 'Side door' });
      const follow = await laptop.post('/sync', { url: central.baseUrl, key: upstream.key, event_id: upstream.eventId, group_id: group });
      assert.equal(follow.status, 201, JSON.stringify(follow.body));

      // A laptop that never followed took the event as a file and scanned Bob an hour ago.
      const whole = await fetch(`${central.baseUrl}/events/${upstream.eventId}/export`, { headers: { authorization: `Token ${central.adminToken}` } });
      const imported = await other.request('POST', '/events/import', { rawBody: Buffer.from(await whole.arrayBuffer()), headers: GZIP });
      assert.equal(imported.status, 201, JSON.stringify(imported.body));
      const scan = await other.post(`/events/${imported.body.event_id}/checkins`, { barcode: 'CODE-BOB', station: 'Back door' });
      assert.equal(scan.status, 201, JSON.stringify(scan.body));
      const anHourAgo = new Date(Date.now() - 3600_000).toISOString();
      await other.db('checkins').where({ uid: scan.body.uid }).update({ modified: anHourAgo });
      await other.db('guests').where({ id: scan.body.guest_id }).update({ modified: anHourAgo });

      // Its file is carried to the following laptop and imported there (merged by uid).
      const carried = await fetch(`${other.baseUrl}/events/${imported.body.event_id}/export`, { headers: { authorization: `Token ${other.adminToken}` } });
      const merged = await laptop.request('POST', '/events/import', { rawBody: Buffer.from(await carried.arrayBuffer()), headers: GZIP });
      assert.equal(merged.status, 200, JSON.stringify(merged.body));
      assert.equal(merged.body.checkins_added, 1);
      await eventually('the carried check-in upstream', async () => ((await central.db('checkins').where({ uid: scan.body.uid }).first()) ? true : undefined));
    } finally {
      await Promise.all([central.stop(), laptop.stop(), other.stop()]);
    }
  });
});

describe('POST /events/:event_id/sync/changes', () => {
  let central: TestServer;
  let upstream: { groupId: number; eventId: number; key: string };

  before(async () => {
    central = await TestServer.start();
    upstream = await seedUpstream(central);
  });
  after(async () => {
    await central.stop();
  });

  it('merges a replayed push once: the second answer adds nothing', async () => {
    const scan = await central.post(`/events/${upstream.eventId}/checkins`, { barcode: 'CODE-ADA', station: 'central door' });
    assert.equal(scan.status, 201);
    const res = await fetch(`${central.baseUrl}/events/${upstream.eventId}/sync/changes`, { headers: { authorization: `Token ${upstream.key}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('x-doorlist-cursor') ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const file = Buffer.from(await res.arrayBuffer());
    await central.db('checkins').where({ uid: scan.body.uid }).delete();
    const first = await central.request('POST', `/events/${upstream.eventId}/sync/changes`, { rawBody: file, headers: GZIP, token: upstream.key });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.checkins_added, 1);
    const replay = await central.request('POST', `/events/${upstream.eventId}/sync/changes`, { rawBody: file, headers: GZIP, token: upstream.key });
    assert.equal(replay.status, 200);
    assert.equal(replay.body.checkins_added, 0);
    assert.equal(Number((await central.db('checkins').where({ event_id: upstream.eventId }).count({ n: '*' }))[0].n), 1);
  });

  it('reaches back for changes that arrived after the cursor but were made before it', async () => {
    const laptop = await TestServer.start();
    try {
      const follow = await laptop.post('/sync', { url: central.baseUrl, key: upstream.key, event_id: upstream.eventId });
      assert.equal(follow.status, 201, JSON.stringify(follow.body));
      // Apart from the central: the laptop's scan is made now, and reaches it only later.
      assert.equal((await laptop.delete(`/events/${follow.body.event_id}/sync`)).status, 204);
      const scan = await laptop.post(`/events/${follow.body.event_id}/checkins`, { barcode: 'CODE-BOB', station: 'side door' });
      assert.equal(scan.status, 201, JSON.stringify(scan.body));
      await new Promise((r) => setTimeout(r, 50));
      const before = await fetch(`${central.baseUrl}/events/${upstream.eventId}/sync/changes`, { headers: { authorization: `Token ${upstream.key}` } });
      const cursor = before.headers.get('x-doorlist-cursor')!;
      await before.arrayBuffer();

      const local = await fetch(`${laptop.baseUrl}/events/${follow.body.event_id}/sync/changes`, { headers: { authorization: `Token ${laptop.adminToken}` } });
      const push = await central.request('POST', `/events/${upstream.eventId}/sync/changes`, { rawBody: Buffer.from(await local.arrayBuffer()), headers: GZIP, token: upstream.key });
      assert.equal(push.status, 200, JSON.stringify(push.body));
      assert.equal(push.body.checkins_added, 1);

      const delta = await fetch(`${central.baseUrl}/events/${upstream.eventId}/sync/changes?since=${encodeURIComponent(cursor)}`, { headers: { authorization: `Token ${upstream.key}` } });
      assert.equal(delta.status, 200);
      const text = zlib.gunzipSync(Buffer.from(await delta.arrayBuffer())).toString('utf8');
      assert.ok(text.includes(scan.body.uid), 'the late check-in is in the delta');
    } finally {
      await laptop.stop();
    }
  });

  it('answers 400 for a file of another event, and merges nothing', async () => {
    const other = await createEvent(central, upstream.groupId, { name: 'Other night' });
    const res = await fetch(`${central.baseUrl}/events/${other}/sync/changes`, { headers: { authorization: `Token ${central.adminToken}` } });
    const file = Buffer.from(await res.arrayBuffer());
    const push = await central.request('POST', `/events/${upstream.eventId}/sync/changes`, { rawBody: file, headers: GZIP });
    assert.equal(push.status, 400);
    assert.deepEqual(push.body, { detail: MSG.syncWrongEvent });
  });
});

describe('The upstream key in logs', () => {
  let central: TestServer;
  let laptop: RunningServer;
  let dir: string;
  let logs = '';
  let centralStopped = false;

  before(async () => {
    central = await TestServer.start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-sync-log-'));
    const sink = new Writable({
      write(chunk, _enc, done) {
        logs += chunk;
        done();
      },
    });
    const config = loadConfig({}, [], { db: path.join(dir, 'laptop.sqlite'), port: 0, adminUsername: ADMIN.username, adminPassword: ADMIN.password, logLevel: 'trace' });
    laptop = await startServer(config, { logger: createLogger('trace', sink), announce: false });
  });
  after(async () => {
    await laptop.close();
    if (!centralStopped) await central.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('never writes the key, whether the upstream answers or not', async () => {
    const upstream = await seedUpstream(central);
    const api = `${laptop.url}/api/v1`;
    const login = await fetch(`${api}/apps/api/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    const { token } = (await login.json()) as { token: string };
    const headers = { 'content-type': 'application/json', authorization: `Token ${token}` };
    const group = await fetch(`${api}/groups`, { method: 'POST', headers, body: JSON.stringify({ name: 'Side door', email: 'side@door.test' }) });
    const groupId = ((await group.json()) as { id: number }).id;
    const follow = await fetch(`${api}/sync`, { method: 'POST', headers, body: JSON.stringify({ url: central.baseUrl, key: upstream.key, event_id: upstream.eventId, group_id: groupId }) });
    assert.equal(follow.status, 201, await follow.clone().text());
    const { event_id: eventId } = (await follow.json()) as { event_id: number };
    // The upstream goes away: the follower logs that it works alone.
    await central.stop();
    centralStopped = true;
    await eventually('the offline state', async () => {
      const res = await fetch(`${api}/events/${eventId}/sync`, { headers });
      const body = (await res.json()) as { state: string };
      return body.state === 'offline' ? true : undefined;
    });
    assert.ok(logs.includes('sync: working alone'), logs.slice(0, 2000));
    assert.ok(logs.includes('/api/v1/sync'));
    assert.ok(logs.includes('[redacted]'));
    assert.ok(!logs.includes(upstream.key));
    assert.ok(!logs.includes(token));
  });
});

describe('A laptop following a laptop that follows the central', () => {
  let central: TestServer;
  let first: TestServer;
  let second: TestServer;

  before(async () => {
    [central, first, second] = await Promise.all([TestServer.start(), TestServer.start(), TestServer.start()]);
  });
  after(async () => {
    await Promise.all([central.stop(), first.stop(), second.stop()]);
  });

  it('carries scans along the chain, even one the far laptop sends after a long gap', async () => {
    const upstream = await seedUpstream(central);
    const followFirst = await first.post('/sync', { url: central.baseUrl, key: upstream.key, event_id: upstream.eventId });
    assert.equal(followFirst.status, 201, JSON.stringify(followFirst.body));
    const firstEvent = followFirst.body.event_id;
    const firstKey = await createApiKey(first, (await first.db('events').where({ id: firstEvent }).first()).group_id);
    const followSecond = await second.post('/sync', { url: first.baseUrl, key: firstKey, event_id: firstEvent });
    assert.equal(followSecond.status, 201, JSON.stringify(followSecond.body));
    const secondEvent = followSecond.body.event_id;
    const atCentral = (uid: string) => async () => ((await central.db('checkins').where({ uid }).first()) ? true : undefined);

    const online = await second.post(`/events/${secondEvent}/checkins`, { barcode: 'CODE-ADA', station: 'far door' });
    assert.equal(online.status, 201, JSON.stringify(online.body));
    await eventually('the far scan at the central', atCentral(online.body.uid));

    // The far laptop is cut off; its scan reaches the middle laptop only after the middle
    // laptop's push cursor has moved well past the scan's time (deltas reach 10 s behind a
    // cursor). The scan is dated a minute back, as a laptop cut off for a minute sends it.
    assert.equal((await second.delete(`/events/${secondEvent}/sync`)).status, 204);
    const late = await second.post(`/events/${secondEvent}/checkins`, { barcode: 'CODE-BOB', station: 'far door' });
    assert.equal(late.status, 201, JSON.stringify(late.body));
    const aMinuteAgo = new Date(Date.now() - 60_000).toISOString();
    await second.db('checkins').where({ uid: late.body.uid }).update({ modified: aMinuteAgo });
    await second.db('guests').where({ id: late.body.guest_id }).update({ modified: aMinuteAgo });
    const pushedSince = async () => {
      const sync = await first.db('syncs').where({ event_id: firstEvent }).first();
      return sync && Date.parse(sync.push_cursor) - 10_000 > Date.parse(aMinuteAgo) ? true : undefined;
    };
    await eventually("the middle laptop's push cursor past the late scan", pushedSince);
    const file = await fetch(`${second.baseUrl}/events/${secondEvent}/sync/changes`, { headers: { authorization: `Token ${second.adminToken}` } });
    const push = await first.request('POST', `/events/${firstEvent}/sync/changes`, { rawBody: Buffer.from(await file.arrayBuffer()), headers: GZIP, token: firstKey });
    assert.equal(push.status, 200, JSON.stringify(push.body));
    assert.equal(push.body.checkins_added, 1);
    await eventually('the late scan at the central', atCentral(late.body.uid));
  });
});

describe('The follower when its server stops', () => {
  // Started before the timed test, so its timeout bounds only the wait on the silent link.
  let central: TestServer;
  let laptop: TestServer;
  before(async () => {
    central = await TestServer.start();
    laptop = await TestServer.start();
  });
  // Waiting on the upstream would take its minimum-rate window (about 8 s) before the held
  // request gave up by itself: the test fails long before that.
  it('does not wait on an upstream that accepts and never answers', { timeout: 6_000 }, async () => {
    // A link that carries the follow, then goes silent: connections accepted, nothing answered.
    let silent = false;
    let held = 0;
    const sockets = new Set<net.Socket>();
    const link = net.createServer((socket) => {
      sockets.add(socket);
      if (silent) {
        held++;
        return;
      }
      const onward = net.connect(central.running.port, '127.0.0.1');
      sockets.add(onward);
      socket.pipe(onward).pipe(socket);
    });
    await new Promise<void>((resolve) => link.listen(0, '127.0.0.1', resolve));
    const { port } = link.address() as net.AddressInfo;
    try {
      const upstream = await seedUpstream(central);
      const res = await laptop.post('/sync', { url: `http://127.0.0.1:${port}/api/v1`, key: upstream.key, event_id: upstream.eventId });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      silent = true;
      for (const s of sockets) s.destroy();
      await eventually('a request of the follower held by the silent link', async () => (held > 0 ? true : undefined));
      await laptop.stop();
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => link.close(resolve));
      await central.stop();
    }
  });
});
