import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createEvent, createGroup, twoOrganisers } from '../helpers/fixtures';
import { TestServer } from '../helpers/server';

const SESSION = { name: 'Masterclass', starts: '2026-12-01T18:00', ends: '2026-12-01T19:00' };

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
    const res = await server.post(`/events/${event}/sessions`, { ...SESSION, ...fields }, { token });
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
