import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { VENUE_MEMBERS_MAX } from '../../core/sync-limits';
import { TestServer } from '../helpers/server';
import { createApiKey, createEvent, createGroup, createRoleKey } from '../helpers/fixtures';
import { eventually } from '../helpers/eventually';
import { UpstreamProxy } from '../helpers/upstream-proxy';

// Issue 47 on loopback: the venue routes' refusals, the venue credential's reach, the takeover.
// The LAN itself (three laptops, a dead upstream) is venue-three-laptops.test.ts.

const FINGERPRINT = 'ab'.repeat(32);
const hello = (fields: Record<string, unknown> = {}) => ({ name: 'Side door', url: 'https://10.0.0.2:8788/api/v1', fingerprint: FINGERPRINT, event_id: 7, epoch: 1, part: 'follower', ...fields });

describe('A venue on loopback: POST /events/:event_id/sync/venue, the venue credential, POST .../sync/takeover', () => {
  let upstream: TestServer;
  let laptop: TestServer;
  let upstreamEvent: number;
  let otherUpstreamEvent: number;
  let followed: number;
  let credential: string;

  before(async () => {
    [upstream, laptop] = await Promise.all([TestServer.start(), TestServer.start({ syncTickMs: 50 })]);
    const group = await createGroup(upstream, { name: 'Box office' });
    upstreamEvent = await createEvent(upstream, group, { name: 'Harbour Lights' });
    otherUpstreamEvent = await createEvent(upstream, group, { name: 'Another night' });
    const key = await createRoleKey(upstream, group, 'door');
    const res = await laptop.post('/sync', { url: upstream.baseUrl, key, event_id: upstreamEvent });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    followed = res.body.event_id;
    // The follower's first exchanges make the venue upstream and hand the credential down.
    credential = await eventually('the venue credential on the follower', async () => (await laptop.db('venues').where({ event_id: followed }).first())?.credential as string | undefined);
  });
  after(async () => {
    await Promise.all([upstream.stop(), laptop.stop()]);
  });

  it('shows the venue on both sides: GET .../sync on the follower (epoch 1, no LAN laptops, no credential), GET .../sync/venue on the upstream', async () => {
    const status = (await laptop.get(`/events/${followed}/sync`)).body;
    assert.deepEqual([status.epoch, status.venue, status.venue_note], [1, [], null]);
    assert.ok(!JSON.stringify(status).includes(credential), 'the credential is never shown');
    const view = await upstream.get(`/events/${upstreamEvent}/sync/venue`);
    assert.deepEqual([view.status, view.body], [200, { part: 'upstream', epoch: 1, upstream_url: null, note: null, venue: [] }]);
    assert.deepEqual((await laptop.get(`/events/${followed}/sync/venue`)).body, { part: 'follower', epoch: 1, upstream_url: upstream.baseUrl, note: null, venue: [] });
    assert.deepEqual((await upstream.get(`/events/${otherUpstreamEvent}/sync/venue`)).body, { detail: MSG.venueNotFound });
  });

  it("accepts the venue credential on its own event's sync routes, as the door role", async () => {
    const asVenue = { token: credential };
    const changes = await upstream.get(`/events/${upstreamEvent}/sync/changes`, asVenue);
    assert.equal(changes.status, 200);
    const answer = await upstream.post(`/events/${upstreamEvent}/sync/venue`, hello(), asVenue);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual([answer.body.part, answer.body.epoch, answer.body.credential, answer.body.url], ['upstream', 1, credential, null]);
    const view = (await upstream.get(`/events/${upstreamEvent}/sync/venue`)).body;
    assert.deepEqual(view.venue.map((m: { name: string; url: string }) => [m.name, m.url]), [['Side door', 'https://10.0.0.2:8788/api/v1']]);
  });

  it('answers 401, as for a wrong key, with the venue credential anywhere else: another event, its guests, the events, a scan, the status', async () => {
    const asVenue = { token: credential };
    const refused = [
      await upstream.get(`/events/${otherUpstreamEvent}/sync/changes`, asVenue),
      await upstream.post(`/events/${otherUpstreamEvent}/sync/venue`, hello(), asVenue),
      await upstream.get(`/events/${upstreamEvent}/guests`, asVenue),
      await upstream.get('/events', asVenue),
      await upstream.post(`/events/${upstreamEvent}/checkins`, { guest_id: 1 }, asVenue),
      await upstream.get(`/events/${upstreamEvent}/sync/venue`, asVenue),
      await upstream.post(`/events/${upstreamEvent}/sync/takeover`, undefined, asVenue),
    ];
    assert.deepEqual(
      refused.map((r) => [r.status, r.body]),
      refused.map(() => [401, { detail: MSG.sessionExpired }]),
    );
  });

  it('answers 400 on a hello that is junk, too long, or names an address outside the LAN', async () => {
    const bad = async (body: unknown) => (await upstream.post(`/events/${upstreamEvent}/sync/venue`, body, { token: credential })).body;
    assert.deepEqual(await bad(hello({ url: 'https://8.8.8.8:8788/api/v1' })), { url: [MSG.venueUrl] });
    assert.deepEqual(await bad(hello({ url: 'http://10.0.0.2:8787/api/v1' })), { url: [MSG.venueUrl] });
    assert.deepEqual(await bad(hello({ url: 'https://printer.local:8788/api/v1' })), { url: [MSG.venueUrl] });
    assert.deepEqual(await bad(hello({ name: 'x'.repeat(65) })), { name: ['Ensure this field has no more than 64 characters.'] });
    assert.deepEqual(Object.keys(await bad(hello({ fingerprint: 'not hex' }))), ['fingerprint']);
    assert.deepEqual(Object.keys(await bad(hello({ epoch: 0 }))), ['epoch']);
    assert.deepEqual(Object.keys(await bad(hello({ part: 'king' }))), ['part']);
    const junk = await upstream.request('POST', `/events/${upstreamEvent}/sync/venue`, { rawBody: '{"name": ', headers: { 'content-type': 'application/json' }, token: credential });
    assert.equal(junk.status, 400);
  });

  it(`holds at most ${VENUE_MEMBERS_MAX} laptops: the next one is refused with 409, one already there is still answered`, async () => {
    const asVenue = { token: credential };
    for (let i = 1; i < VENUE_MEMBERS_MAX; i++) {
      const res = await upstream.post(`/events/${upstreamEvent}/sync/venue`, hello({ name: `Door ${i}`, url: `https://10.0.1.${i}:8788/api/v1` }), asVenue);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const full = await upstream.post(`/events/${upstreamEvent}/sync/venue`, hello({ url: 'https://10.0.2.1:8788/api/v1' }), asVenue);
    assert.deepEqual([full.status, full.body], [409, { detail: MSG.venueFull(VENUE_MEMBERS_MAX) }]);
    const known = await upstream.post(`/events/${upstreamEvent}/sync/venue`, hello(), asVenue);
    assert.equal(known.status, 200);
    assert.equal(known.body.members.length, VENUE_MEMBERS_MAX - 1, 'the asker is not told about itself');
  });

  it('refuses the takeover to an API key (403 as for roles) and answers 409 where the event is not followed', async () => {
    const group = await createGroup(laptop, { name: 'Laptop group' });
    const managerKey = await createApiKey(laptop, group, 'manager key');
    const byKey = await laptop.post(`/events/${followed}/sync/takeover`, undefined, { token: managerKey });
    assert.equal(byKey.status, 404, 'out of the key group: absent');
    const adminKeyless = await upstream.post(`/events/${upstreamEvent}/sync/takeover`);
    assert.deepEqual([adminKeyless.status, adminKeyless.body], [409, { detail: MSG.venueNotFollowed }]);
    const upstreamGroupKey = await createApiKey(upstream, (await upstream.get(`/events/${upstreamEvent}`)).body.group_id, 'upstream manager');
    const refused = await upstream.post(`/events/${upstreamEvent}/sync/takeover`, undefined, { token: upstreamGroupKey });
    assert.deepEqual([refused.status, refused.body], [403, { detail: MSG.roleNotAllowed }]);
    assert.equal((await laptop.post('/events/999999/sync/takeover')).status, 404);
  });

  it('takes over: 200 {epoch: 2}, the event is no longer followed, the venue shows this laptop as its upstream; a second takeover is 409', async () => {
    const res = await laptop.post(`/events/${followed}/sync/takeover`);
    assert.deepEqual([res.status, res.body], [200, { epoch: 2 }]);
    assert.equal((await laptop.get(`/events/${followed}/sync`)).status, 404);
    const view = (await laptop.get(`/events/${followed}/sync/venue`)).body;
    assert.deepEqual([view.part, view.epoch, view.upstream_url], ['upstream', 2, null]);
    // Its venue credential is still the venue's: the old upstream, or any laptop, may now speak to it with it.
    const changes = await laptop.get(`/events/${followed}/sync/changes`, { token: credential });
    assert.equal(changes.status, 200);
    const again = await laptop.post(`/events/${followed}/sync/takeover`);
    assert.deepEqual([again.status, again.body], [409, { detail: MSG.venueNotFollowed }]);
  });

  it('forgets the venue credential when a follow is stopped with DELETE', async () => {
    const key = await createRoleKey(upstream, (await upstream.get(`/events/${otherUpstreamEvent}`)).body.group_id, 'door');
    const res = await laptop.post('/sync', { url: upstream.baseUrl, key, event_id: otherUpstreamEvent });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const other = res.body.event_id;
    const secret = await eventually('the second venue credential', async () => (await laptop.db('venues').where({ event_id: other }).first())?.credential as string | undefined);
    assert.equal((await laptop.get(`/events/${other}/sync/changes`, { token: secret })).status, 200);
    assert.equal((await laptop.delete(`/events/${other}/sync`)).status, 204);
    assert.equal(await laptop.db('venues').where({ event_id: other }).first(), undefined);
    assert.equal((await laptop.get(`/events/${other}/sync/changes`, { token: secret })).status, 401);
  });
});

describe('A follower against hostile venue answers and peers (issue 47): refused, bounded, nothing kept out of scope', () => {
  let upstream: TestServer;
  let laptop: TestServer;
  let proxy: UpstreamProxy;
  let followed: number;
  let eventUid: string;
  let answers = 0;
  /** What the proxy answers the follower's hello with, made from the real answer. */
  let rewrite: ((real: any) => unknown) | undefined;

  const venueRow = async () => laptop.db('venues').where({ event_id: followed }).first();
  const answered = async (n: number) => eventually(`${n} more venue answers`, () => (answers >= n ? true : undefined));

  before(async () => {
    upstream = await TestServer.start();
    // A hello every quarter of the probe time: every 100 ms, where the default's 2.5 s made each
    // case below wait 5 s for two answers.
    laptop = await TestServer.start({ syncTickMs: 50, venueProbeSeconds: 0.4 });
    proxy = await UpstreamProxy.start(upstream.baseUrl);
    // Rewrites the hello's answer on its way to the follower; everything else passes as it is.
    proxy.override = (req, res) => {
      if (!rewrite || req.method !== 'POST' || !/\/sync\/venue$/.test(req.url ?? '')) return false;
      const change = rewrite;
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', async () => {
        const real = await upstream.request('POST', (req.url ?? '').replace(/^\/api\/v1/, ''), { rawBody: body, headers: { 'content-type': 'application/json' }, token: (req.headers.authorization ?? '').replace(/^Token\s+/, '') });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(change(real.body)));
        answers++;
      });
      return true;
    };
    const group = await createGroup(upstream, { name: 'Box office' });
    const eventId = await createEvent(upstream, group, { name: 'Hostile night' });
    eventUid = (await upstream.db('events').where({ id: eventId }).first()).uid;
    const res = await laptop.post('/sync', { url: proxy.baseUrl, key: await createRoleKey(upstream, group, 'door'), event_id: eventId });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    followed = res.body.event_id;
    await eventually('the venue credential on the follower', async () => (await venueRow())?.credential);
  });
  after(async () => {
    await proxy.close();
    await Promise.all([upstream.stop(), laptop.stop()]);
  });

  const peer = (i: number, url = `https://10.0.3.${i % 250}:8788/api/v1`) => ({ name: `Door ${i}`, url, fingerprint: 'cd'.repeat(32), event_id: 3, last_seen_at: '2026-12-02T10:00:00.000Z' });

  for (const [what, change] of [
    ['a venue list of hundreds of laptops', (real: any) => ({ ...real, members: Array.from({ length: 300 }, (_, i) => peer(i)) })],
    ['a laptop outside the LAN', (real: any) => ({ ...real, members: [peer(1), peer(2, 'https://8.8.8.8:8788/api/v1')] })],
    ['a laptop named by a host name', (real: any) => ({ ...real, members: [peer(1, 'https://door.example.com:8788/api/v1')] })],
    ['another event', (real: any) => ({ ...real, event_uid: '00000000-0000-4000-8000-000000000000', members: [peer(1)] })],
    ['an epoch past any takeover', (real: any) => ({ ...real, epoch: 2 ** 40, members: [peer(1)] })],
    ['a credential of a few letters', (real: any) => ({ ...real, credential: 'short', members: [peer(1)] })],
  ] as const) {
    it(`keeps nothing of an answer with ${what}, and the sync goes on`, async () => {
      const before = await venueRow();
      rewrite = change;
      const seen = answers;
      await answered(seen + 2);
      assert.deepEqual(await venueRow(), before);
      assert.deepEqual(await laptop.db('venue_members').where({ event_id: followed }), []);
      const status = (await laptop.get(`/events/${followed}/sync`)).body;
      assert.deepEqual([status.state, status.epoch, status.venue], ['ok', 1, []]);
      rewrite = undefined;
    });
  }

  it('keeps a higher epoch its upstream answers, and no stale one after it', async () => {
    rewrite = (real: any) => ({ ...real, epoch: 3, members: [peer(1)] });
    await eventually('epoch 3 kept', async () => ((await venueRow())?.epoch === 3 ? true : undefined));
    rewrite = (real: any) => ({ ...real, epoch: 2, members: [] });
    await answered(answers + 2);
    assert.equal((await venueRow())?.epoch, 3);
    assert.deepEqual((await laptop.get(`/events/${followed}/sync`)).body.venue.map((m: { name: string }) => m.name), ['Door 1']);
    rewrite = undefined;
    assert.equal(eventUid.length, 36);
  });
});

describe('A follower whose upstream is silent asks the venue, pinned to the fingerprints it learned (loopback)', () => {
  let upstream: TestServer;
  let other: TestServer;
  let laptop: TestServer;
  let ids: { upstream: number; other: number; laptop: number };

  before(async () => {
    const quick = { syncTickMs: 50, venueProbeSeconds: 0.2, syncErrorRetryMs: 50 };
    // HTTPS on a free port: the shipped 8788 may be another test process's while this file runs.
    [upstream, other, laptop] = await Promise.all([TestServer.start(quick), TestServer.start({ ...quick, stationName: 'Side door', httpsPort: 0 }), TestServer.start(quick)]);
    // The other follower shares HTTPS on loopback: the venue can name it (a loopback address is a venue address).
    await other.running.lan.serveHttps('127.0.0.1');
    const group = await createGroup(upstream, { name: 'Box office' });
    const eventId = await createEvent(upstream, group, { name: 'Quiet night' });
    const key = await createRoleKey(upstream, group, 'door');
    const follow = async (server: TestServer) => (await server.post('/sync', { url: upstream.baseUrl, key, event_id: eventId })).body.event_id as number;
    ids = { upstream: eventId, other: await follow(other), laptop: await follow(laptop) };
    await eventually('the laptop knowing the other follower', async () => ((await laptop.get(`/events/${ids.laptop}/sync`)).body.venue.length === 1 ? true : undefined));
    await upstream.stop();
  });
  after(async () => {
    await Promise.all([other.stop(), laptop.stop()]);
  });

  it('follows nobody whose fingerprint does not match what it learned, then the laptop that took over once it does', async () => {
    const learned = (await laptop.db('venue_members').where({ event_id: ids.laptop }).first()).fingerprint;
    await laptop.db('venue_members').where({ event_id: ids.laptop }).update({ fingerprint: 'ef'.repeat(32) });
    // A cycle already asking the venue read the learned fingerprint before the change, and would
    // meet the takeover with it: the takeover waits until that cycle (one at a time per sync) has ended.
    const ended = laptop.running.follower.cyclesEnded;
    await eventually('a cycle begun before the change ending', () => (laptop.running.follower.cyclesEnded > ended ? true : undefined));
    assert.deepEqual((await other.post(`/events/${ids.other}/sync/takeover`)).body, { epoch: 2 });
    const ticks = laptop.running.follower.ticks;
    await eventually('several ticks asking the venue', () => (laptop.running.follower.ticks > ticks + 10 ? true : undefined));
    const still = (await laptop.get(`/events/${ids.laptop}/sync`)).body;
    assert.deepEqual([still.url, still.epoch], [upstream.baseUrl, 1]);
    await laptop.db('venue_members').where({ event_id: ids.laptop }).update({ fingerprint: learned });
    const moved = await eventually('the laptop following the other', async () => {
      const status = (await laptop.get(`/events/${ids.laptop}/sync`)).body;
      return status.epoch === 2 ? status : undefined;
    });
    assert.equal(moved.url, (await other.get('/lan')).body.https_urls[0] + '/api/v1');
    assert.equal(moved.venue_note, MSG.venueMoved('Side door', 2));
  });
});
