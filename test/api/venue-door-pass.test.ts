import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createLogger } from '../../server/logger';
import { mintDoorPass } from '../../server/sync/door-pass';
import { TestServer } from '../helpers/server';
import { createEvent, createGroup, createRoleKey } from '../helpers/fixtures';
import { eventually } from '../helpers/eventually';

// Issue 47 on loopback: the door pass a door screen takes to the venue's other laptops, and the
// API across origins for those laptops only (server/sync/door-pass.ts, server/http/venue-cors.ts).
// The screen's move itself is test/e2e/venue-door-move.spec.ts.

const SIDE_DOOR = 'https://10.0.0.2:8788';
const FINGERPRINT = 'ab'.repeat(32);
const hello = { name: 'Side door', url: `${SIDE_DOOR}/api/v1`, fingerprint: FINGERPRINT, event_id: 7, epoch: 1, part: 'follower' };
const UNAUTHORIZED = [401, { detail: MSG.sessionExpired }];

/** Everything a server logs, kept to be searched for secrets. */
function capturedLogger() {
  const log = { text: '' };
  const sink = new Writable({
    write(chunk, _encoding, done) {
      log.text += chunk;
      done();
    },
  });
  return { log, logger: createLogger('info', sink) };
}

describe('A door pass and the venue CORS: POST /events/:event_id/sync/door_pass, a pass on every laptop of the venue', () => {
  const upstreamLog = capturedLogger();
  const laptopLog = capturedLogger();
  let upstream: TestServer;
  let laptop: TestServer;
  let groupId: number;
  let upstreamEvent: number;
  let otherEvent: number;
  let followed: number;
  let followedOther: number;
  let doorKey: string;
  let credential: string;
  let eventUid: string;
  const guestIds: Record<'upstream' | 'laptop', number> = { upstream: 0, laptop: 0 };

  /** A follow of `eventId` on the laptop; answers the laptop's id of it and its venue credential, once the guests are there. */
  async function follow(eventId: number): Promise<{ id: number; credential: string }> {
    const res = await laptop.post('/sync', { url: upstream.baseUrl, key: doorKey, event_id: eventId });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const id = res.body.event_id as number;
    const secret = await eventually('the venue credential on the follower', async () => (await laptop.db('venues').where({ event_id: id }).first())?.credential as string | undefined);
    await eventually('the guests on the follower', async () => ((await laptop.get(`/events/${id}/guests`)).body.count > 0 ? true : undefined));
    return { id, credential: secret };
  }

  before(async () => {
    [upstream, laptop] = await Promise.all([TestServer.start({}, { logger: upstreamLog.logger }), TestServer.start({ syncTickMs: 50 }, { logger: laptopLog.logger })]);
    groupId = await createGroup(upstream, { name: 'Box office' });
    upstreamEvent = await createEvent(upstream, groupId, { name: 'Harbour Lights' });
    otherEvent = await createEvent(upstream, groupId, { name: 'Another night' });
    for (const eventId of [upstreamEvent, otherEvent]) {
      const type = await upstream.post(`/events/${eventId}/registration_types`, { type: 'ticket', name: 'Entry', description: 'Door' });
      const guest = await upstream.post(`/events/${eventId}/guests`, { registration_type: type.body.id, first_name: 'Ada', last_name: 'Guest', email: 'ada@venue.test', barcode: `PASS-${eventId}` });
      assert.equal(guest.status, 201, JSON.stringify(guest.body));
      if (eventId === upstreamEvent) guestIds.upstream = guest.body.id;
    }
    doorKey = await createRoleKey(upstream, groupId, 'door');
    ({ id: followed, credential } = await follow(upstreamEvent));
    ({ id: followedOther } = await follow(otherEvent));
    guestIds.laptop = (await laptop.get(`/events/${followed}/guests`)).body.results[0].id;
    eventUid = (await upstream.db('events').where({ id: upstreamEvent }).first('uid')).uid;
    // A laptop of the venue that shares the LAN, as the upstream hears it: its origin is the venue's.
    const greeted = await upstream.post(`/events/${upstreamEvent}/sync/venue`, hello, { token: credential });
    assert.equal(greeted.status, 200, JSON.stringify(greeted.body));
    await eventually('the side door known on the follower', async () => ((await laptop.get(`/events/${followed}/sync`)).body.venue.length === 1 ? true : undefined));
  });
  // The follower first: its sync would otherwise ask an upstream whose database is closing.
  after(async () => {
    await laptop.stop();
    await upstream.stop();
  });

  const mint = async (server: TestServer, eventId: number, token: string | undefined = doorKey) => server.post(`/events/${eventId}/sync/door_pass`, undefined, { token });

  it('answers 200 with a pass for the event, its uid, the epoch and the laptops known, to a door key; 404 where the event has no venue', async () => {
    const res = await mint(upstream, upstreamEvent);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { pass, expires_at, ...rest } = res.body;
    assert.match(pass, new RegExp(`^dlpass1\\.${eventUid}\\.\\d+\\.[A-Za-z0-9_-]{43}$`));
    assert.ok(!pass.includes(credential), 'never the venue credential itself');
    const hours = (Date.parse(expires_at) - Date.now()) / 3_600_000;
    assert.ok(hours > 23 && hours <= 24, expires_at);
    assert.deepEqual(rest, { event_uid: eventUid, epoch: 1, laptops: [{ name: 'Side door', url: hello.url, fingerprint: 'AB:'.repeat(31) + 'AB', event_id: 7 }] });
    const noVenue = await createEvent(upstream, groupId, { name: 'No venue yet' });
    const none = await mint(upstream, noVenue);
    assert.deepEqual([none.status, none.body], [404, { detail: MSG.venueNotFound }]);
    assert.deepEqual((await mint(upstream, 999999)).body, { detail: MSG.venueNotFound });
  });

  it("opens its own event's door routes on every laptop of the venue: the guest list, a scan, the stats, the venue", async () => {
    const { pass } = (await mint(upstream, upstreamEvent)).body;
    for (const [server, eventId, guestId, uid] of [
      [upstream, upstreamEvent, guestIds.upstream, 'pass-upstream-1'],
      [laptop, followed, guestIds.laptop, 'pass-laptop-1'],
    ] as const) {
      const asPass = { token: pass };
      const guests = await server.get(`/events/${eventId}/guests?search=Ada`, asPass);
      assert.deepEqual([guests.status, guests.body.results.map((g: { id: number }) => g.id)], [200, [guestId]]);
      const scanned = await server.post(`/events/${eventId}/checkins`, { guest_id: guestId, uid, station: 'Moved door' }, asPass);
      assert.equal(scanned.status, 201, JSON.stringify(scanned.body));
      const again = await server.post(`/events/${eventId}/checkins`, { guest_id: guestId, uid, station: 'Moved door' }, asPass);
      assert.deepEqual([again.status, again.body.id], [201, scanned.body.id], 'a scan handed over twice is stored once');
      assert.equal((await server.get(`/events/${eventId}/stats`, asPass)).status, 200);
      assert.equal((await server.get(`/events/${eventId}/sync/venue`, asPass)).status, 200);
      const uids = (await server.get(`/events/${eventId}/checkins`)).body.results.map((c: { uid: string }) => c.uid);
      assert.equal(uids.filter((u: string) => u === uid).length, 1);
    }
    // The follower's own pass works at the upstream too: every laptop holds the same credential.
    const fromLaptop = await mint(laptop, followed, laptop.adminToken);
    assert.equal(fromLaptop.status, 200, JSON.stringify(fromLaptop.body));
    assert.equal((await upstream.get(`/events/${upstreamEvent}/stats`, { token: fromLaptop.body.pass })).status, 200);
  });

  it('answers 401, as for a wrong key, to a pass that expired, is forged, or names another event', async () => {
    const { pass } = (await mint(upstream, upstreamEvent)).body;
    const [, , expiry, mac] = pass.split('.');
    const otherUid = (await upstream.db('events').where({ id: otherEvent }).first('uid')).uid;
    const refusedPasses = [
      mintDoorPass(credential, eventUid, Date.now() - 25 * 3_600_000).pass,
      `dlpass1.${eventUid}.${expiry}.${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`,
      `dlpass1.${eventUid}.${Number(expiry) + 3600}.${mac}`,
      // The Harbour credential vouching for another event of the venue's laptops.
      mintDoorPass(credential, otherUid).pass,
      mintDoorPass('dlv_not-the-credential', eventUid).pass,
      `dlpass1.${eventUid}.${expiry}`,
    ];
    for (const token of refusedPasses) {
      for (const [server, eventId] of [[upstream, upstreamEvent], [laptop, followed]] as const) {
        const res = await server.get(`/events/${eventId}/stats`, { token });
        assert.deepEqual([res.status, res.body], UNAUTHORIZED, token.slice(0, 60));
      }
    }
  });

  it('reaches nothing else: another event, the event list, the groups, set-up, undo, the sync, admin routes, a new pass', async () => {
    const { pass } = (await mint(upstream, upstreamEvent)).body;
    // A scan the pass made (the same uid again answers the stored one).
    const checkin = (await upstream.post(`/events/${upstreamEvent}/checkins`, { guest_id: guestIds.upstream, uid: 'pass-upstream-1', station: 'Moved door' }, { token: pass })).body;
    assert.equal(typeof checkin.id, 'number', JSON.stringify(checkin));
    for (const [server, eventId, other] of [[upstream, upstreamEvent, otherEvent], [laptop, followed, followedOther]] as const) {
      const asPass = { token: pass };
      const refused = [
        await server.get(`/events/${other}/guests`, asPass),
        await server.get(`/events/${other}/stats`, asPass),
        await server.get('/events', asPass),
        await server.get('/groups', asPass),
        await server.get('/lan', asPass),
        await server.put(`/events/${eventId}`, { name: 'Renamed' }, asPass),
        await server.post('/events', { name: 'Mine', starts: '2026-12-02T18:00', ends: '2026-12-02T23:00', timezone: 'Europe/Amsterdam', group_id: groupId }, asPass),
        await server.get(`/events/${eventId}/sync/changes`, asPass),
        await server.post(`/events/${eventId}/sync/takeover`, undefined, asPass),
        await server.post(`/events/${eventId}/sync/door_pass`, undefined, asPass),
        await server.get(`/groups/${groupId}/api_keys`, asPass),
        await server.get('/me', asPass),
        await server.get('/sync', asPass),
      ];
      assert.deepEqual(
        refused.map((r) => [r.status, r.body]),
        refused.map(() => UNAUTHORIZED),
      );
    }
    const undo = await upstream.delete(`/events/${upstreamEvent}/checkins/${checkin.id}`, { token: pass });
    assert.deepEqual([undo.status, undo.body], UNAUTHORIZED);
  });

  it("refuses the venue credential the door's routes and every admin route: it is the event's sync alone", async () => {
    const asVenue = { token: credential };
    for (const [server, eventId] of [[upstream, upstreamEvent], [laptop, followed]] as const) {
      const refused = [
        await server.post(`/events/${eventId}/sync/door_pass`, undefined, asVenue),
        await server.get(`/events/${eventId}/stats`, asVenue),
        await server.get('/groups', asVenue),
        await server.get(`/groups/${groupId}/users`, asVenue),
        await server.post(`/groups/${groupId}/api_keys`, { name: 'mine' }, asVenue),
        await server.get('/sync', asVenue),
      ];
      assert.deepEqual(
        refused.map((r) => [r.status, r.body]),
        refused.map(() => UNAUTHORIZED),
      );
    }
  });

  it("answers across origins for the venue's own laptops only, on every laptop of the venue", async () => {
    for (const [server, eventId] of [[upstream, upstreamEvent], [laptop, followed]] as const) {
      const preflight = await server.request('OPTIONS', `/events/${eventId}/checkins`, { token: null, headers: { origin: SIDE_DOOR, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
      assert.equal(preflight.status, 204);
      assert.deepEqual(
        ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'vary'].map((h) => preflight.headers.get(h)),
        [SIDE_DOOR, 'GET, POST, PUT, DELETE', 'authorization, content-type, accept', 'Origin'],
      );
      const get = await server.get(`/events/${eventId}/stats`, { headers: { origin: SIDE_DOOR } });
      assert.deepEqual([get.status, get.headers.get('access-control-allow-origin')], [200, SIDE_DOOR]);
      // A refusal carries the header too: the moved screen reads why.
      const refused = await server.get(`/events/${eventId}/stats`, { token: 'dlpass1.x.1.y', headers: { origin: SIDE_DOOR } });
      assert.deepEqual([refused.status, refused.headers.get('access-control-allow-origin')], [401, SIDE_DOOR]);
      for (const stranger of ['https://10.0.0.99:8788', 'http://10.0.0.2:8788', 'https://10.0.0.2:8789', 'https://evil.example', 'null']) {
        const asked = await server.request('OPTIONS', `/events/${eventId}/checkins`, { token: null, headers: { origin: stranger, 'access-control-request-method': 'POST' } });
        const read = await server.get(`/events/${eventId}/stats`, { headers: { origin: stranger } });
        assert.deepEqual([asked.headers.get('access-control-allow-origin'), read.headers.get('access-control-allow-origin')], [null, null], stranger);
        assert.notEqual(asked.status, 204, stranger);
        assert.equal(read.status, 200, 'the answer is the same; only a browser keeps it from the stranger');
      }
    }
  });

  it('writes no pass and no venue credential to either log', async () => {
    const { pass } = (await mint(upstream, upstreamEvent)).body;
    await laptop.get(`/events/${followed}/stats`, { token: pass });
    await laptop.get(`/events/${followed}/stats`, { token: `${pass}x` });
    for (const { log } of [upstreamLog, laptopLog]) {
      assert.ok(log.text.includes('/stats'), 'the requests are logged');
      assert.ok(!log.text.includes(credential), 'no venue credential');
      assert.ok(!log.text.includes(pass.split('.')[3]), 'no pass');
      assert.ok(!log.text.includes(doorKey));
    }
  });
});
