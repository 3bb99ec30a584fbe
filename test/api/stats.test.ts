import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createEvent, createGroup, createRoleKey, twoOrganisers } from '../helpers/fixtures';
import { MAX_STATIONS_PER_CALLER } from '../../server/services/station-heartbeats';
import { createSession, scan, seedGuests, seedRegistrationType } from '../helpers/checkins';
import { TestServer } from '../helpers/server';

describe('GET /events/:event_id/stats', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  /** A scan that must be accepted (201), so the figures below count it. */
  async function accepted(eventId: number, body: Record<string, unknown>) {
    const res = await scan(server, eventId, body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  }

  it('answers zeros and empty lists for an event nobody has scanned at', async () => {
    const eventId = await createEvent(server, await createGroup(server));
    const res = await server.get(`/events/${eventId}/stats`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { total: 0, checked_in: 0, inactive: 0, registration_types: [], sessions: [], stations: [], arrivals: [] });
  });

  it('counts guests, who is in, per registration type, per session, per station and arrivals per 5 minutes', async () => {
    const eventId = await createEvent(server, await createGroup(server));
    const vip = await seedRegistrationType(server, eventId, 'VIP');
    const regular = await seedRegistrationType(server, eventId, 'Regular');
    await seedGuests(server, eventId, vip, [{ barcode: 'V1' }, { barcode: 'V2' }, { barcode: 'V3', objstatus: 2 }]);
    await seedGuests(server, eventId, regular, [{ barcode: 'R1' }, { barcode: 'R2' }, { barcode: 'R3' }, { barcode: 'R4' }]);
    const talk = await createSession(server, eventId, { name: 'Talk', capacity: 50, overbook_capacity: 5, access_control: true, auto_registration: true });
    const empty = await createSession(server, eventId, { name: 'Empty room' });

    const ok = (body: Record<string, unknown>) => accepted(eventId, body);
    await ok({ barcode: 'V1', station: 'North', scanned_at: '2026-12-01T18:01:10' });
    await ok({ barcode: 'V2', station: 'North', scanned_at: '2026-12-01T18:04:59' });
    await ok({ barcode: 'R1', station: 'South', scanned_at: '2026-12-01T18:05:00' });
    await ok({ barcode: 'R2', station: 'South', scanned_at: '2026-12-01T18:12:00' });
    await ok({ barcode: 'R2', station: 'South', direction: 'out', scanned_at: '2026-12-01T18:20:00' });
    const mistake = await ok({ barcode: 'R3', station: 'South', scanned_at: '2026-12-01T18:13:00' });
    assert.equal((await server.delete(`/events/${eventId}/checkins/${mistake.id}`)).status, 204);
    // Refusals are not counted anywhere.
    assert.equal((await scan(server, eventId, { barcode: 'V1', station: 'North' })).status, 409);
    assert.equal((await scan(server, eventId, { barcode: 'V3', station: 'North' })).status, 400);
    // Session attendance: two guests, one of them twice (in, out, in) counts once.
    await ok({ barcode: 'V1', session_id: talk, station: 'Talk door', scanned_at: '2026-12-01T18:30:00' });
    await ok({ barcode: 'V1', session_id: talk, station: 'Talk door', direction: 'out', scanned_at: '2026-12-01T18:40:00' });
    await ok({ barcode: 'V1', session_id: talk, station: 'Talk door', scanned_at: '2026-12-01T18:45:00' });
    await ok({ barcode: 'R4', session_id: talk, station: 'Talk door', scanned_at: '2026-12-01T18:31:00' });

    const res = await server.get(`/events/${eventId}/stats`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      total: 7,
      checked_in: 3,
      inactive: 1,
      registration_types: [
        { id: vip, name: 'VIP', total: 3, checked_in: 2 },
        { id: regular, name: 'Regular', total: 4, checked_in: 1 },
      ],
      sessions: [
        { id: talk, name: 'Talk', registered: 2, checked_in: 2, capacity: 50, overbook_capacity: 5 },
        { id: empty, name: 'Empty room', registered: 0, checked_in: 0, capacity: 10000, overbook_capacity: 0 },
      ],
      stations: [
        { station: 'North', checked_in: 2, checked_out: 0, undone: 0 },
        { station: 'South', checked_in: 2, checked_out: 1, undone: 1 },
        { station: 'Talk door', checked_in: 3, checked_out: 1, undone: 0 },
      ],
      // Event-door arrivals only, by when the scan happened: 18:00 (V1, V2), 18:05 (R1), 18:10 (R2).
      arrivals: [
        { starts: '2026-12-01T18:00:00', checked_in: 2 },
        { starts: '2026-12-01T18:05:00', checked_in: 1 },
        { starts: '2026-12-01T18:10:00', checked_in: 1 },
      ],
    });
  });

  it('buckets arrivals across the hour and the day, skipping empty buckets, and counts only scans still standing', async () => {
    const eventId = await createEvent(server, await createGroup(server));
    const day = await seedRegistrationType(server, eventId, 'Day');
    const night = await seedRegistrationType(server, eventId, 'Night');
    const unsold = await seedRegistrationType(server, eventId, 'Unsold');
    const [d1] = await seedGuests(server, eventId, day, [{ barcode: 'D1' }, { barcode: 'D2' }, { barcode: 'D3' }, { barcode: 'D4' }]);
    await seedGuests(server, eventId, night, [{ barcode: 'N1' }]);
    const talk = await createSession(server, eventId, { name: 'Talk' });

    const ok = (body: Record<string, unknown>) => accepted(eventId, body);
    await ok({ barcode: 'D1', station: 'West', scanned_at: '2026-12-01T18:57:00' });
    await ok({ barcode: 'D2', station: 'West', scanned_at: '2026-12-01T18:59:59' });
    await ok({ barcode: 'D3', scanned_at: '2026-12-01T19:00:00' });
    await ok({ barcode: 'D3', station: 'East', direction: 'out', scanned_at: '2026-12-01T19:20:00' });
    await ok({ barcode: 'D3', station: 'East', scanned_at: '2026-12-01T19:31:00' });
    await ok({ barcode: 'N1', station: 'East', scanned_at: '2026-12-02T00:01:00' });
    await ok({ barcode: 'N1', station: 'Talk door', session_id: talk, scanned_at: '2026-12-02T00:02:00' });
    // A station whose only scan was undone is not listed, and the undone arrival not counted.
    const mistake = await ok({ barcode: 'D4', station: 'Ghost', scanned_at: '2026-12-01T19:45:00' });
    assert.equal((await server.delete(`/events/${eventId}/checkins/${mistake.id}`)).status, 204);
    // Made inactive while inside: still in, and counted as inactive.
    await server.db('guests').where({ id: d1 }).update({ objstatus: 2 });

    const res = await server.get(`/events/${eventId}/stats`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      total: 5,
      checked_in: 4,
      inactive: 1,
      registration_types: [
        { id: day, name: 'Day', total: 4, checked_in: 3 },
        { id: night, name: 'Night', total: 1, checked_in: 1 },
        { id: unsold, name: 'Unsold', total: 0, checked_in: 0 },
      ],
      sessions: [{ id: talk, name: 'Talk', registered: 0, checked_in: 1, capacity: 10000, overbook_capacity: 0 }],
      stations: [
        { station: null, checked_in: 1, checked_out: 0, undone: 0 },
        { station: 'East', checked_in: 2, checked_out: 1, undone: 0 },
        { station: 'Ghost', checked_in: 0, checked_out: 0, undone: 1 },
        { station: 'Talk door', checked_in: 1, checked_out: 0, undone: 0 },
        { station: 'West', checked_in: 2, checked_out: 0, undone: 0 },
      ],
      // D3's return at 19:31 is an arrival of its own; the session scan is not one.
      arrivals: [
        { starts: '2026-12-01T18:55:00', checked_in: 2 },
        { starts: '2026-12-01T19:00:00', checked_in: 1 },
        { starts: '2026-12-01T19:30:00', checked_in: 1 },
        { starts: '2026-12-02T00:00:00', checked_in: 1 },
      ],
    });
  });

  it('lists scans with no station under station null', async () => {
    const eventId = await createEvent(server, await createGroup(server));
    const type = await seedRegistrationType(server, eventId);
    await seedGuests(server, eventId, type, [{ barcode: 'N1' }]);
    assert.equal((await scan(server, eventId, { barcode: 'N1' })).status, 201);
    const res = await server.get(`/events/${eventId}/stats`);
    assert.deepEqual(res.body.stations, [{ station: null, checked_in: 1, checked_out: 0, undone: 0 }]);
    assert.equal(res.body.arrivals.length, 1);
    assert.match(res.body.arrivals[0].starts, /^\d{4}-\d{2}-\d{2}T\d{2}:\d[05]:00$/);
  });

  describe('supervisor=true and the stations\' heartbeat (station, queued)', () => {
    const apiNow = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString().slice(0, 19);

    it('adds what remains, the pace, every station\'s health and the latest scans with who they were; without it the answer is as before', async () => {
      const eventId = await createEvent(server, await createGroup(server));
      const vip = await seedRegistrationType(server, eventId, 'VIP');
      const regular = await seedRegistrationType(server, eventId, 'Regular');
      const [v1] = await seedGuests(server, eventId, vip, [{ barcode: 'V1', first_name: 'Vera', last_name: 'Ito' }, { barcode: 'V2' }, { barcode: 'V3', objstatus: 2 }]);
      const [r1] = await seedGuests(server, eventId, regular, [{ barcode: 'R1', first_name: 'Rui', last_name: 'Sá' }, { barcode: 'R2' }]);
      // South scanned ten minutes ago and never sent a heartbeat: it left, listed last.
      await accepted(eventId, { barcode: 'R2', station: 'South', scanned_at: apiNow(-10 * 60_000) });
      await accepted(eventId, { barcode: 'V1', station: 'North' });
      await accepted(eventId, { barcode: 'R1', station: 'North' });
      // Gate polls holding two unsent scans; Idle polls and has scanned nothing yet.
      assert.equal((await server.get(`/events/${eventId}/stats?station=Gate&queued=2`)).status, 200);
      const idle = await server.get(`/events/${eventId}/stats?station=Idle`);
      assert.equal(idle.body.supervisor, undefined);

      const res = await server.get(`/events/${eventId}/stats?supervisor=true`);
      assert.equal(res.status, 200);
      const { now, stations, latest, ...rest } = res.body.supervisor;
      assert.match(now, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      assert.deepEqual(rest, {
        // V2 of VIP (V3 is inactive), nobody of Regular.
        remaining: 1,
        registration_types: [
          { id: vip, remaining: 1 },
          { id: regular, remaining: 0 },
        ],
        recent_minutes: 5,
        scans_recent: 2,
      });
      const seen = (s: { last_seen_at: string | null; last_scan_at: string | null }) => ({ ...s, last_seen_at: s.last_seen_at !== null, last_scan_at: s.last_scan_at !== null });
      assert.deepEqual(stations.map(seen), [
        { station: 'Gate', health: 'queued', last_scan_at: false, last_seen_at: true, queued: 2, scans_recent: 0 },
        { station: 'Idle', health: 'online', last_scan_at: false, last_seen_at: true, queued: 0, scans_recent: 0 },
        { station: 'North', health: 'online', last_scan_at: true, last_seen_at: true, queued: 0, scans_recent: 2 },
        { station: 'South', health: 'left', last_scan_at: true, last_seen_at: true, queued: 0, scans_recent: 0 },
      ]);
      assert.ok(stations[3].last_scan_at <= apiNow(-9 * 60_000));
      assert.deepEqual(
        latest.map((c: Record<string, unknown>) => [c.guest_id, c.first_name, c.last_name, c.registration_type, c.direction, c.session_id, c.station]),
        [
          [r1, 'Rui', 'Sá', regular, 'in', null, 'North'],
          [v1, 'Vera', 'Ito', vip, 'in', null, 'North'],
          [r1 + 1, 'Ada', 'Lovelace', regular, 'in', null, 'South'],
        ],
      );
    });

    it('lists no undone scan among the latest, and counts it in no pace', async () => {
      const eventId = await createEvent(server, await createGroup(server));
      const type = await seedRegistrationType(server, eventId);
      await seedGuests(server, eventId, type, [{ barcode: 'U1' }]);
      const mistake = await accepted(eventId, { barcode: 'U1', station: 'East' });
      assert.equal((await server.delete(`/events/${eventId}/checkins/${mistake.id}`)).status, 204);
      const { supervisor } = (await server.get(`/events/${eventId}/stats?supervisor=true`)).body;
      assert.deepEqual([supervisor.latest, supervisor.scans_recent, supervisor.remaining], [[], 0, 1]);
      assert.equal(supervisor.stations[0].station, 'East');
      assert.notEqual(supervisor.stations[0].last_scan_at, null);
    });

    it('answers 400 field errors for a bad heartbeat or flag, and records nothing', async () => {
      const eventId = await createEvent(server, await createGroup(server));
      const bad = async (query: string) => {
        const res = await server.get(`/events/${eventId}/stats${query}`);
        assert.equal(res.status, 400, query);
        return res.body;
      };
      assert.deepEqual(await bad('?station=Gate&queued=-1'), { queued: ['Ensure this value is greater than or equal to 0.'] });
      assert.deepEqual(await bad('?station=Gate&queued=many'), { queued: [MSG.invalidInteger] });
      assert.deepEqual(await bad('?station=%20'), { station: [MSG.blank] });
      assert.deepEqual(await bad(`?station=${'x'.repeat(129)}`), { station: [MSG.invalidStation] });
      assert.deepEqual(await bad('?supervisor=maybe'), { supervisor: [MSG.invalidBoolean] });
      assert.deepEqual((await server.get(`/events/${eventId}/stats?supervisor=true`)).body.supervisor.stations, []);
    });

    it("shows a renamed station's scans under its new name, once, and lets no other caller rename it", async () => {
      const groupId = await createGroup(server);
      const eventId = await createEvent(server, groupId);
      const type = await seedRegistrationType(server, eventId);
      await seedGuests(server, eventId, type, [{ barcode: 'N1' }, { barcode: 'N2' }]);
      const door = await createRoleKey(server, groupId, 'door', 'door phone');
      const other = await createRoleKey(server, groupId, 'door', 'another phone');
      assert.equal((await server.get(`/events/${eventId}/stats?station=Door%20A`, { token: door })).status, 200);
      await accepted(eventId, { barcode: 'N1', station: 'Door A' });
      assert.equal((await server.get(`/events/${eventId}/stats?station=Main`, { token: other })).status, 200);
      // Another caller cannot fold Door A into its own station.
      assert.equal((await server.get(`/events/${eventId}/stats?station=Main&previous_station=Door%20A`, { token: other })).status, 200);
      assert.equal((await server.get(`/events/${eventId}/stats?station=Front&previous_station=Door%20A`, { token: door })).status, 200);
      await accepted(eventId, { barcode: 'N2', station: 'Front' });
      const { stations } = (await server.get(`/events/${eventId}/stats?supervisor=true`)).body.supervisor;
      assert.deepEqual(
        stations.map((s: { station: string; health: string; scans_recent: number }) => [s.station, s.health, s.scans_recent]),
        [
          ['Front', 'online', 2],
          ['Main', 'online', 0],
        ],
      );
    });

    it('keeps at most a bounded number of stations of one caller, however many names it invents', async () => {
      const groupId = await createGroup(server);
      const eventId = await createEvent(server, groupId);
      const door = await createRoleKey(server, groupId, 'door', 'inventive phone');
      for (let i = 0; i < MAX_STATIONS_PER_CALLER + 10; i++) assert.equal((await server.get(`/events/${eventId}/stats?station=Ghost%20${i}`, { token: door })).status, 200);
      const { stations } = (await server.get(`/events/${eventId}/stats?supervisor=true`)).body.supervisor;
      assert.equal(stations.length, MAX_STATIONS_PER_CALLER);
      assert.ok(stations.some((s: { station: string }) => s.station === `Ghost ${MAX_STATIONS_PER_CALLER + 9}`));
    });

    it('takes no heartbeat for an event out of scope', async () => {
      const { a, b } = await twoOrganisers(server);
      assert.equal((await server.get(`/events/${a.eventId}/stats?station=Spy`, { token: b.key })).status, 404);
      const res = await server.get(`/events/${a.eventId}/stats?supervisor=true`, { token: a.key });
      assert.deepEqual(res.body.supervisor.stations, []);
    });
  });

  it('answers 404 for an event out of scope', async () => {
    const { a, b } = await twoOrganisers(server);
    const res = await server.get(`/events/${a.eventId}/stats`, { token: b.key });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: MSG.eventNotFound });
    assert.equal((await server.get(`/events/${a.eventId}/stats`, { token: a.key })).status, 200);
  });

  describe('never stale: a read right after each kind of write counts it', () => {
    const GZIP = { 'content-type': 'application/gzip' };
    let laptop2: TestServer;
    before(async () => {
      laptop2 = await TestServer.start();
    });
    after(() => laptop2.stop());

    async function stats(on: TestServer, eventId: number) {
      const res = await on.get(`/events/${eventId}/stats`);
      assert.equal(res.status, 200);
      return res.body;
    }

    async function exportFile(eventId: number): Promise<Buffer> {
      const res = await fetch(`${server.baseUrl}/events/${eventId}/export`, { headers: { authorization: `Token ${server.adminToken}` } });
      assert.equal(res.status, 200);
      return Buffer.from(await res.arrayBuffer());
    }

    it('after a guest added, a scan, an undo, a type change, a deactivation, a session registration and an import', async () => {
      const eventId = await createEvent(server, await createGroup(server));
      const general = await seedRegistrationType(server, eventId, 'General');
      const vip = await seedRegistrationType(server, eventId, 'VIP');
      const sessionId = await createSession(server, eventId, { capacity: 10 });
      const byType = (body: { registration_types: { name: string; total: number; checked_in: number }[] }) => body.registration_types.map((t) => [t.name, t.total, t.checked_in]);

      const added = await server.post(`/events/${eventId}/guests`, { registration_type: general, first_name: 'Fresh', last_name: 'Guest', email: 'fresh@guests.test', barcode: 'FRESH-1' });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      assert.deepEqual(byType(await stats(server, eventId)), [['General', 1, 0], ['VIP', 0, 0]]);

      const scanned = await accepted(eventId, { barcode: 'FRESH-1', station: 'Gate', scanned_at: '2026-12-01T18:07' });
      let now = await stats(server, eventId);
      assert.equal(now.checked_in, 1);
      assert.deepEqual(now.stations, [{ station: 'Gate', checked_in: 1, checked_out: 0, undone: 0 }]);
      assert.deepEqual(now.arrivals, [{ starts: '2026-12-01T18:05:00', checked_in: 1 }]);

      assert.equal((await server.delete(`/events/${eventId}/checkins/${scanned.id}`)).status, 204);
      now = await stats(server, eventId);
      assert.deepEqual([now.checked_in, now.stations, now.arrivals], [0, [{ station: 'Gate', checked_in: 0, checked_out: 0, undone: 1 }], []]);

      assert.equal((await server.put(`/events/${eventId}/guests/${added.body.id}`, { registration_type: vip })).status, 200);
      assert.deepEqual(byType(await stats(server, eventId)), [['General', 0, 0], ['VIP', 1, 0]]);

      assert.equal((await server.put(`/events/${eventId}/guests/${added.body.id}`, { objstatus: 2 })).status, 200);
      assert.equal((await stats(server, eventId)).inactive, 1);

      const registered = await server.put(`/events/${eventId}/guests/${added.body.id}/registration/session/${sessionId}`, {});
      assert.equal(registered.status, 200, JSON.stringify(registered.body));
      assert.deepEqual((await stats(server, eventId)).sessions.map((s: { registered: number }) => s.registered), [1]);

      // An event file: laptop 2 takes the event, then a later file with one more guest, who is in.
      const first = await laptop2.request('POST', `/events/import?group_id=${await createGroup(laptop2)}`, { rawBody: await exportFile(eventId), headers: GZIP });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const copy = first.body.event_id as number;
      assert.equal((await stats(laptop2, copy)).total, 1);
      await seedGuests(server, eventId, general, [{ barcode: 'LATE-1' }]);
      await accepted(eventId, { barcode: 'LATE-1', station: 'Gate' });
      const merged = await laptop2.request('POST', '/events/import', { rawBody: await exportFile(eventId), headers: GZIP });
      assert.ok(merged.status < 300, JSON.stringify(merged.body));
      now = await stats(laptop2, copy);
      assert.deepEqual([now.total, now.checked_in], [2, 1]);
    });
  });
});
