import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createEvent, createGroup, twoOrganisers } from '../helpers/fixtures';
import { TestServer } from '../helpers/server';

/** Sessions of an event, and a guest's registration for one (PUT .../registration/session/:session_id). */

const SESSION = { name: 'Keynote', starts: '2026-12-01T18:00', ends: '2026-12-01T19:00' };

describe('sessions', () => {
  let server: TestServer;
  let eventId: number;
  before(async () => {
    server = await TestServer.start();
    eventId = await createEvent(server, await createGroup(server));
  });
  after(() => server.stop());

  async function createSession(event: number, fields: Record<string, unknown> = {}): Promise<number> {
    const res = await server.post(`/events/${event}/sessions`, { ...SESSION, ...fields });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.id;
  }

  async function createTrack(event: number): Promise<number> {
    const res = await server.post(`/events/${event}/sessions/tracks`, { name: 'Main', starts: '2026-12-01T18:00', ends: '2026-12-01T23:00' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.id;
  }

  describe('POST /events/:event_id/sessions', () => {
    it('answers 200 {id} (not 201) and fills every default', async () => {
      const res = await server.post(`/events/${eventId}/sessions`, SESSION);
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body), ['id']);
      const detail = await server.get(`/events/${eventId}/sessions/${res.body.id}`);
      assert.equal(detail.status, 200);
      const { created, modified, ...rest } = detail.body;
      assert.deepEqual(rest, {
        id: res.body.id,
        event_id: eventId,
        name: 'Keynote',
        starts: '2026-12-01T18:00:00',
        ends: '2026-12-01T19:00:00',
        tags: [],
        access_control: false,
        capacity: 10000,
        auto_registration: false,
        overbook_capacity: 0,
        track_id: null,
        hidden_session: false,
        overlap_enabled: false,
        registered: 0,
      });
      assert.match(created, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      assert.match(modified, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    });

    it('stores every field: tags in order without repeats, track of the same event', async () => {
      const trackId = await createTrack(eventId);
      const id = await createSession(eventId, {
        name: 'Workshop',
        starts: '2026-12-01T20:00:30',
        ends: '2026-12-01T21:00',
        tags: ['hands-on', ' beginners ', 'hands-on'],
        access_control: true,
        capacity: 25,
        auto_registration: true,
        overbook_capacity: 5,
        track_id: trackId,
        hidden_session: true,
      });
      const { created: _c, modified: _m, ...rest } = (await server.get(`/events/${eventId}/sessions/${id}`)).body;
      assert.deepEqual(rest, {
        id,
        event_id: eventId,
        name: 'Workshop',
        starts: '2026-12-01T20:00:30',
        ends: '2026-12-01T21:00:00',
        tags: ['hands-on', 'beginners'],
        access_control: true,
        capacity: 25,
        auto_registration: true,
        overbook_capacity: 5,
        track_id: trackId,
        hidden_session: true,
        overlap_enabled: false,
        registered: 0,
      });
    });

    it('ignores overlap_enabled on input (response only)', async () => {
      const id = await createSession(eventId, { overlap_enabled: true });
      assert.equal((await server.get(`/events/${eventId}/sessions/${id}`)).body.overlap_enabled, false);
    });

    it('answers 400 "This field is required." for name, starts and ends', async () => {
      const res = await server.post(`/events/${eventId}/sessions`, {});
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { name: [MSG.required], starts: [MSG.required], ends: [MSG.required] });
    });

    it('answers 400 under starts when the session starts after it ends; equal times are fine', async () => {
      const res = await server.post(`/events/${eventId}/sessions`, { ...SESSION, starts: '2026-12-01T19:30' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { starts: [MSG.sessionDatesOrder] });
      assert.equal(MSG.sessionDatesOrder, 'Session start date cannot be later than end date.');
      await createSession(eventId, { starts: '2026-12-01T19:00', ends: '2026-12-01T19:00' });
    });

    it('answers 400 {track_id} for an unknown track or a track of another event', async () => {
      const otherEvent = await createEvent(server, await createGroup(server, { name: 'Other' }));
      const foreignTrack = await createTrack(otherEvent);
      for (const track_id of [foreignTrack, 987654]) {
        const res = await server.post(`/events/${eventId}/sessions`, { ...SESSION, track_id });
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { track_id: [MSG.invalidTrackId] });
      }
      assert.equal((await server.get(`/events/${eventId}/sessions?track_id=${foreignTrack}`)).body.count, 0);
    });

    it('answers 400 for wrong types and negative capacities, writing nothing', async () => {
      const before = (await server.get(`/events/${eventId}/sessions`)).body.count;
      const res = await server.post(`/events/${eventId}/sessions`, {
        name: 42,
        starts: '2026-12-01',
        ends: null,
        tags: 'one',
        access_control: 'maybe',
        capacity: -1,
        overbook_capacity: 1.5,
        track_id: 'abc',
        hidden_session: [],
      });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        name: [MSG.invalidString],
        starts: [MSG.datetimeFormat],
        ends: [MSG.notNull],
        tags: [MSG.invalidList],
        access_control: [MSG.invalidBoolean],
        capacity: ['Ensure this value is greater than or equal to 0.'],
        overbook_capacity: [MSG.invalidInteger],
        track_id: [MSG.invalidInteger],
        hidden_session: [MSG.invalidBoolean],
      });
      assert.deepEqual((await server.post(`/events/${eventId}/sessions`, { ...SESSION, tags: ['ok', ''] })).body, { tags: [MSG.blank] });
      assert.equal((await server.get(`/events/${eventId}/sessions`)).body.count, before);
    });

    it('answers 404 for an unknown event', async () => {
      const res = await server.post('/events/999999/sessions', SESSION);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.eventNotFound });
    });
  });

  describe('GET /events/:event_id/sessions', () => {
    it('lists the sessions of the event in the envelope, with tags, paged', async () => {
      const event = await createEvent(server, await createGroup(server, { name: 'Listed' }));
      const ids = [await createSession(event, { name: 'A', tags: ['x'] }), await createSession(event, { name: 'B' }), await createSession(event, { name: 'C', tags: ['y', 'z'] })];
      const all = await server.get(`/events/${event}/sessions`);
      assert.equal(all.status, 200);
      assert.equal(all.body.count, 3);
      assert.equal(all.body.next, null);
      assert.equal(all.body.previous, null);
      assert.deepEqual(all.body.results.map((s: { id: number }) => s.id), ids);
      assert.deepEqual(all.body.results.map((s: { tags: string[] }) => s.tags), [['x'], [], ['y', 'z']]);
      const page = await server.get(`/events/${event}/sessions?page=2&page_size=2`);
      assert.deepEqual(page.body.results.map((s: { name: string }) => s.name), ['C']);
      assert.match(page.body.previous, /page_size=2/);
      const first = await server.get(`/events/${event}/sessions?page_size=2`);
      assert.match(first.body.next, /page=2/);
    });

    it('filters by track_id and by timestamp', async () => {
      const event = await createEvent(server, await createGroup(server, { name: 'Filtered' }));
      const trackId = await createTrack(event);
      const inTrack = await createSession(event, { track_id: trackId });
      await createSession(event);
      const byTrack = await server.get(`/events/${event}/sessions?track_id=${trackId}`);
      assert.deepEqual(byTrack.body.results.map((s: { id: number }) => s.id), [inTrack]);
      const future = Math.floor(Date.now() / 1000) + 3600;
      assert.equal((await server.get(`/events/${event}/sessions?timestamp=${future}`)).body.count, 0);
      assert.deepEqual((await server.get(`/events/${event}/sessions?timestamp=soon`)).body, { timestamp: [MSG.invalidTimestamp] });
    });
  });

  describe('GET /events/:event_id/sessions/:session_id', () => {
    it('answers 404 {detail: "Session not found."} for an unknown id, a non-numeric id or a session of another event', async () => {
      const otherEvent = await createEvent(server, await createGroup(server, { name: 'Elsewhere' }));
      const foreign = await createSession(otherEvent);
      for (const id of ['999999', 'abc', String(foreign)]) {
        const res = await server.get(`/events/${eventId}/sessions/${id}`);
        assert.equal(res.status, 404, id);
        assert.deepEqual(res.body, { detail: MSG.sessionNotFound });
      }
    });
  });

  describe('PUT /events/:event_id/sessions/:session_id', () => {
    it('updates the given fields, keeps the others, and answers 200 {id}', async () => {
      const trackId = await createTrack(eventId);
      const id = await createSession(eventId, { tags: ['old'], overbook_capacity: 3, hidden_session: true, capacity: 40 });
      const res = await server.put(`/events/${eventId}/sessions/${id}`, { name: 'Renamed', tags: ['new', 'newer'], access_control: true, auto_registration: true, track_id: trackId });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { id });
      const detail = (await server.get(`/events/${eventId}/sessions/${id}`)).body;
      assert.equal(detail.name, 'Renamed');
      assert.deepEqual(detail.tags, ['new', 'newer']);
      assert.equal(detail.access_control, true);
      assert.equal(detail.auto_registration, true);
      assert.equal(detail.track_id, trackId);
      assert.equal(detail.overbook_capacity, 3);
      assert.equal(detail.hidden_session, true);
      assert.equal(detail.capacity, 40);
      assert.equal(detail.starts, '2026-12-01T18:00:00');
    });

    it('clears tags with [] or null and the track with null', async () => {
      const trackId = await createTrack(eventId);
      const id = await createSession(eventId, { tags: ['a'], track_id: trackId });
      await server.put(`/events/${eventId}/sessions/${id}`, { tags: null, track_id: null });
      const detail = (await server.get(`/events/${eventId}/sessions/${id}`)).body;
      assert.deepEqual(detail.tags, []);
      assert.equal(detail.track_id, null);
    });

    it('sends a fetched record back unchanged without complaint', async () => {
      const id = await createSession(eventId, { capacity: 12, tags: ['t'] });
      const detail = (await server.get(`/events/${eventId}/sessions/${id}`)).body;
      const res = await server.put(`/events/${eventId}/sessions/${id}`, detail);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    });

    it('answers 400 {capacity} for a changed capacity: it is set on create only', async () => {
      const id = await createSession(eventId, { capacity: 12 });
      const res = await server.put(`/events/${eventId}/sessions/${id}`, { capacity: 13, name: 'Not applied' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { capacity: [MSG.capacityCreateOnly] });
      const detail = (await server.get(`/events/${eventId}/sessions/${id}`)).body;
      assert.equal(detail.capacity, 12);
      assert.equal(detail.name, 'Keynote');
    });

    it('answers 400 under starts when the dates cross, comparing with the stored values', async () => {
      const id = await createSession(eventId);
      assert.deepEqual((await server.put(`/events/${eventId}/sessions/${id}`, { starts: '2026-12-01T19:30' })).body, { starts: [MSG.sessionDatesOrder] });
      assert.deepEqual((await server.put(`/events/${eventId}/sessions/${id}`, { ends: '2026-12-01T17:00' })).body, { starts: [MSG.sessionDatesOrder] });
      assert.equal((await server.put(`/events/${eventId}/sessions/${id}`, { starts: '2026-12-01T20:00', ends: '2026-12-01T21:00' })).status, 200);
    });

    it('answers 400 {track_id} for a track of another event and 400 for a blank name', async () => {
      const otherEvent = await createEvent(server, await createGroup(server, { name: 'Foreign tracks' }));
      const foreignTrack = await createTrack(otherEvent);
      const id = await createSession(eventId);
      assert.deepEqual((await server.put(`/events/${eventId}/sessions/${id}`, { track_id: foreignTrack })).body, { track_id: [MSG.invalidTrackId] });
      assert.deepEqual((await server.put(`/events/${eventId}/sessions/${id}`, { name: '' })).body, { name: [MSG.blank] });
    });

    it('answers 404 {detail: "Session not found."} for an unknown session', async () => {
      const res = await server.put(`/events/${eventId}/sessions/999999`, { name: 'X' });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.sessionNotFound });
    });
  });

  describe('DELETE /events/:event_id/sessions/:session_id', () => {
    it('answers 204 with no body, removes the session and its tags', async () => {
      const id = await createSession(eventId, { tags: ['gone'] });
      const res = await server.delete(`/events/${eventId}/sessions/${id}`);
      assert.equal(res.status, 204);
      assert.equal(res.body, '');
      assert.deepEqual((await server.get(`/events/${eventId}/sessions/${id}`)).body, { detail: MSG.sessionNotFound });
      assert.equal((await server.db('session_tags').where({ session_id: id })).length, 0);
    });

    it('answers 404 {detail: "Session not found."} the second time', async () => {
      const id = await createSession(eventId);
      await server.delete(`/events/${eventId}/sessions/${id}`);
      const res = await server.delete(`/events/${eventId}/sessions/${id}`);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.sessionNotFound });
    });
  });

  describe('scope', () => {
    it("answers 404 to another organiser's key on every session route, and changes nothing", async () => {
      const { a, b } = await twoOrganisers(server);
      const id = await createSession(a.eventId, { name: 'Private' });
      const opts = { token: b.key };
      assert.deepEqual((await server.post(`/events/${a.eventId}/sessions`, SESSION, opts)).body, { detail: MSG.eventNotFound });
      assert.equal((await server.get(`/events/${a.eventId}/sessions`, opts)).status, 404);
      assert.equal((await server.get(`/events/${a.eventId}/sessions/${id}`, opts)).status, 404);
      assert.equal((await server.put(`/events/${a.eventId}/sessions/${id}`, { name: 'Stolen' }, opts)).status, 404);
      assert.equal((await server.delete(`/events/${a.eventId}/sessions/${id}`, opts)).status, 404);
      assert.deepEqual((await server.get(`/events/${b.eventId}/sessions/${id}`, opts)).body, { detail: MSG.sessionNotFound });
      assert.deepEqual((await server.put(`/events/${b.eventId}/sessions/${id}`, { name: 'Stolen' }, opts)).body, { detail: MSG.sessionNotFound });
      const own = await server.get(`/events/${a.eventId}/sessions/${id}`, { token: a.key });
      assert.equal(own.body.name, 'Private');
      assert.equal((await server.get(`/events/${a.eventId}/sessions`, { token: a.key })).body.count, 1);
    });
  });
});

const REGISTERED_SESSION = { name: 'Masterclass', starts: '2026-12-01T18:00', ends: '2026-12-01T19:00' };

describe('PUT /events/:event_id/guests/:guest_id/registration/session/:session_id', () => {
  let server: TestServer;
  let eventId: number;
  let typeId: number;
  before(async () => {
    server = await TestServer.start();
    eventId = await createEvent(server, await createGroup(server));
    typeId = await createType(eventId);
  });
  after(() => server.stop());

  async function createType(event: number, token?: string): Promise<number> {
    const res = await server.post(`/events/${event}/registration_types`, { type: 'ticket', name: 'Standard', description: 'Entry' }, { token });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id;
  }

  let guestCounter = 0;
  async function createGuest(event = eventId, type = typeId, token?: string): Promise<number> {
    const n = ++guestCounter;
    const res = await server.post(`/events/${event}/guests`, { registration_type: type, first_name: `Guest${n}`, last_name: 'Doe', email: `guest${n}@doe.test` }, { token });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id;
  }

  async function createSession(event = eventId, fields: Record<string, unknown> = {}, token?: string): Promise<number> {
    const res = await server.post(`/events/${event}/sessions`, { ...REGISTERED_SESSION, ...fields }, { token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.id;
  }

  const path = (guestId: number | string, sessionId: number | string, event: number = eventId) =>
    `/events/${event}/guests/${guestId}/registration/session/${sessionId}`;
  const registered = async (sessionId: number, event = eventId) => (await server.get(`/events/${event}/sessions/${sessionId}`)).body.registered;

  it('answers 200 {guest_id, status: "registered", session_id} with the ids as strings', async () => {
    const guestId = await createGuest();
    const sessionId = await createSession();
    const res = await server.put(path(guestId, sessionId), { attend: true });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { guest_id: String(guestId), status: 'registered', session_id: String(sessionId) });
    assert.deepEqual(Object.keys(res.body), ['guest_id', 'status', 'session_id']);
    assert.equal(await registered(sessionId), 1);
  });

  it('takes attend as true when the body is empty or absent', async () => {
    const sessionId = await createSession();
    const first = await createGuest();
    const second = await createGuest();
    assert.equal((await server.put(path(first, sessionId), {})).body.status, 'registered');
    assert.equal((await server.request('PUT', path(second, sessionId))).body.status, 'registered');
    assert.equal(await registered(sessionId), 2);
  });

  it('is idempotent: registering twice answers 200 again and takes one seat', async () => {
    const guestId = await createGuest();
    const sessionId = await createSession(eventId, { capacity: 1 });
    const first = await server.put(path(guestId, sessionId), { attend: true });
    const again = await server.put(path(guestId, sessionId), { attend: true });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
    assert.equal(await registered(sessionId), 1);
  });

  it('with attend=false removes the registration and answers status "unregistered", also when not registered', async () => {
    const guestId = await createGuest();
    const sessionId = await createSession(eventId, { capacity: 1 });
    await server.put(path(guestId, sessionId), { attend: true });
    const res = await server.put(path(guestId, sessionId), { attend: false });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { guest_id: String(guestId), status: 'unregistered', session_id: String(sessionId) });
    assert.equal(await registered(sessionId), 0);
    assert.deepEqual((await server.put(path(guestId, sessionId), { attend: 'false' })).body.status, 'unregistered');
    // The freed seat is available again.
    const other = await createGuest();
    assert.equal((await server.put(path(other, sessionId), {})).status, 200);
  });

  it('answers 400 {details: "Session is full!"} once capacity plus overbook_capacity is taken', async () => {
    const sessionId = await createSession(eventId, { capacity: 1, overbook_capacity: 1 });
    const guests = [await createGuest(), await createGuest(), await createGuest()];
    assert.equal((await server.put(path(guests[0], sessionId), {})).status, 200);
    assert.equal((await server.put(path(guests[1], sessionId), {})).status, 200);
    const full = await server.put(path(guests[2], sessionId), {});
    assert.equal(full.status, 400);
    assert.deepEqual(full.body, { details: MSG.sessionFull });
    assert.equal(MSG.sessionFull, 'Session is full!');
    assert.equal(await registered(sessionId), 2);
    // A guest who already has a seat is still answered 200 when the session is full.
    assert.equal((await server.put(path(guests[0], sessionId), {})).status, 200);
    const none = await createSession(eventId, { capacity: 0 });
    assert.deepEqual((await server.put(path(guests[2], none), {})).body, { details: MSG.sessionFull });
  });

  it('admits exactly capacity + overbook_capacity of many concurrent registrations', async () => {
    const sessionId = await createSession(eventId, { capacity: 3, overbook_capacity: 2 });
    const guests: number[] = [];
    for (let i = 0; i < 14; i++) guests.push(await createGuest());
    const results = await Promise.all(guests.map((g) => server.put(path(g, sessionId), { attend: true })));
    const ok = results.filter((r) => r.status === 200);
    assert.equal(ok.length, 5);
    for (const r of ok) assert.equal(r.body.status, 'registered');
    for (const r of results.filter((r) => r.status !== 200)) {
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { details: MSG.sessionFull });
    }
    assert.equal(await registered(sessionId), 5);
    const rows = await server.db('session_registrations').where({ session_id: sessionId }).pluck('guest_id');
    assert.deepEqual(rows.sort(), ok.map((r) => Number(r.body.guest_id)).sort());
  });

  it('gives one seat to one guest sending the same registration many times at once', async () => {
    const sessionId = await createSession(eventId, { capacity: 2 });
    const guestId = await createGuest();
    const results = await Promise.all(Array.from({ length: 8 }, () => server.put(path(guestId, sessionId), {})));
    assert.ok(results.every((r) => r.status === 200 && r.body.status === 'registered'));
    assert.equal(await registered(sessionId), 1);
  });

  it('answers 400 {attend} for a value that is not a boolean', async () => {
    const res = await server.put(path(await createGuest(), await createSession()), { attend: 'perhaps' });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { attend: [MSG.invalidBoolean] });
  });

  it('answers 404 {details: "Guest not found."} for an unknown guest, a non-numeric id or a guest of another event', async () => {
    const sessionId = await createSession();
    const otherEvent = await createEvent(server, await createGroup(server, { name: 'Other guests' }));
    const foreignGuest = await createGuest(otherEvent, await createType(otherEvent));
    for (const guestId of [999999, 'abc', foreignGuest]) {
      const res = await server.put(path(guestId, sessionId), {});
      assert.equal(res.status, 404, String(guestId));
      assert.deepEqual(res.body, { details: MSG.guestNotFound });
    }
  });

  it('answers 404 {detail: "Session not found."} for an unknown session or a session of another event', async () => {
    const guestId = await createGuest();
    const otherEvent = await createEvent(server, await createGroup(server, { name: 'Other sessions' }));
    const foreignSession = await createSession(otherEvent);
    for (const sessionId of [999999, 'abc', foreignSession]) {
      const res = await server.put(path(guestId, sessionId), {});
      assert.equal(res.status, 404, String(sessionId));
      assert.deepEqual(res.body, { detail: MSG.sessionNotFound });
    }
    assert.equal(await registered(foreignSession, otherEvent), 0);
  });

  it('answers 404 {detail: "Event not found."} for an unknown event', async () => {
    const res = await server.put(path(1, 1, 999999), {});
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: MSG.eventNotFound });
  });

  it('GET /events/:event_id/sessions/:session_id/registrations lists the registered guests in the envelope', async () => {
    const sessionId = await createSession();
    const first = await createGuest();
    const second = await createGuest();
    const leaving = await createGuest();
    for (const g of [first, second, leaving]) await server.put(path(g, sessionId), {});
    await server.put(path(leaving, sessionId), { attend: false });
    const res = await server.get(`/events/${eventId}/sessions/${sessionId}/registrations`);
    assert.equal(res.status, 200);
    assert.equal(res.body.count, 2);
    assert.equal(res.body.next, null);
    const { id, created, modified, ...rest } = res.body.results[0];
    assert.ok(Number.isInteger(id));
    assert.match(created, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    assert.match(modified, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    const guest = (await server.get(`/events/${eventId}/guests/${first}`)).body;
    assert.deepEqual(rest, { guest_id: first, session_id: sessionId, status: 'registered', first_name: guest.first_name, last_name: 'Doe', email: guest.email });
    assert.equal(res.body.results[1].guest_id, second);
    const page = await server.get(`/events/${eventId}/sessions/${sessionId}/registrations?page=2&page_size=1`);
    assert.deepEqual(page.body.results.map((r: { guest_id: number }) => r.guest_id), [second]);
    assert.deepEqual((await server.get(`/events/${eventId}/sessions/999999/registrations`)).body, { detail: MSG.sessionNotFound });
  });

  it('drops the registrations of a deleted session', async () => {
    const guestId = await createGuest();
    const sessionId = await createSession();
    await server.put(path(guestId, sessionId), {});
    assert.equal((await server.delete(`/events/${eventId}/sessions/${sessionId}`)).status, 204);
    assert.equal((await server.db('session_registrations').where({ session_id: sessionId })).length, 0);
  });

  it("answers 404 to another organiser's key and registers nothing", async () => {
    const { a, b } = await twoOrganisers(server);
    const type = await createType(a.eventId, a.key);
    const guestId = await createGuest(a.eventId, type, a.key);
    const sessionId = await createSession(a.eventId, {}, a.key);
    const res = await server.put(path(guestId, sessionId, a.eventId), {}, { token: b.key });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: MSG.eventNotFound });
    assert.deepEqual((await server.put(path(guestId, sessionId, b.eventId), {}, { token: b.key })).body, { details: MSG.guestNotFound });
    assert.equal(await registered(sessionId, a.eventId), 0);
    assert.equal((await server.get(`/events/${a.eventId}/sessions/${sessionId}/registrations`, { token: b.key })).status, 404);
    const own = await server.put(path(guestId, sessionId, a.eventId), {}, { token: a.key });
    assert.equal(own.body.status, 'registered');
  });
});
