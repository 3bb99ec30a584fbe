import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createEvent, createGroup, createRoleKey, stampEarlier, twoOrganisers } from '../helpers/fixtures';
import { TestServer } from '../helpers/server';

const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const VALID = { type: 'ticket', name: 'Early bird', description: 'Before December' };

describe('registration types', () => {
  let server: TestServer;
  let eventId: number;
  const path = () => `/events/${eventId}/registration_types`;
  before(async () => {
    server = await TestServer.start();
    eventId = await createEvent(server, await createGroup(server, { name: 'Tickets Co' }));
  });
  after(() => server.stop());

  describe('POST /events/:event_id/registration_types', () => {
    it('answers 201 {id}; detail returns every field, price as a two-decimal string', async () => {
      const res = await server.post(path(), {
        ...VALID,
        starts: '2026-11-01T09:00',
        ends: '2026-11-30T23:59',
        minorder: 1,
        maxorder: 4,
        price: 12.5,
        quantity: 100,
        door: true,
        online: false,
      });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body), ['id']);
      const detail = await server.get(`${path()}/${res.body.id}`);
      assert.equal(detail.status, 200);
      const { created, modified, ...rest } = detail.body;
      assert.deepEqual(rest, {
        id: res.body.id,
        event: eventId,
        type: 'ticket',
        name: 'Early bird',
        description: 'Before December',
        starts: '2026-11-01T09:00:00',
        ends: '2026-11-30T23:59:00',
        minorder: 1,
        maxorder: 4,
        price: '12.50',
        quantity: 100,
        door: true,
        online: false,
        attention: false,
        source: 'api',
        objstatus: '1',
      });
      assert.match(created, DATETIME);
      assert.match(modified, DATETIME);
    });

    it('defaults the optional fields to null and false; accepts a donation and a price sent as a string', async () => {
      const res = await server.post(path(), { type: 'donation', name: 'Support us', description: '', price: '5' });
      assert.equal(res.status, 201);
      const detail = await server.get(`${path()}/${res.body.id}`);
      assert.equal(detail.body.type, 'donation');
      assert.equal(detail.body.description, '');
      assert.equal(detail.body.price, '5.00');
      for (const key of ['starts', 'ends', 'minorder', 'maxorder', 'quantity']) assert.equal(detail.body[key], null, key);
      assert.equal(detail.body.door, false);
      assert.equal(detail.body.online, false);
      const free = await server.post(path(), { ...VALID });
      assert.equal((await server.get(`${path()}/${free.body.id}`)).body.price, null);
    });

    it('answers 400 "This field is required." for type, name and description', async () => {
      const res = await server.post(path(), {});
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { type: [MSG.required], name: [MSG.required], description: [MSG.required] });
    });

    it('answers 400 "This field may not be blank." for a blank name', async () => {
      const res = await server.post(path(), { ...VALID, name: '   ' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { name: [MSG.blank] });
    });

    it('answers 400 for an unknown type, a bad datetime and a non-integer quantity', async () => {
      const res = await server.post(path(), { ...VALID, type: 'voucher', starts: '2026-11-01', quantity: 'many', door: 'perhaps' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { type: [MSG.invalidRegistrationTypeKind], starts: [MSG.datetimeFormat], quantity: [MSG.invalidInteger], door: [MSG.invalidBoolean] });
    });

    it('answers 400 for a price with more than two decimals', async () => {
      const res = await server.post(path(), { ...VALID, price: 1.005 });
      assert.deepEqual(res.body, { price: [MSG.priceDecimals] });
    });

    it('answers 400 {details: [data integrity]} for what the database refuses', async () => {
      for (const bad of [{ minorder: 5, maxorder: 2 }, { quantity: -1 }, { price: -3 }, { minorder: -1 }]) {
        const res = await server.post(path(), { ...VALID, ...bad });
        assert.equal(res.status, 400, JSON.stringify(bad));
        assert.deepEqual(res.body, { details: [MSG.registrationTypeIntegrity] });
      }
    });

    it('answers 404 for an unknown event', async () => {
      const res = await server.post('/events/999999/registration_types', VALID);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.eventNotFound });
    });
  });

  describe('GET /events/:event_id/registration_types/:registration_type_id', () => {
    it('answers 404 {details: "Registration type not found."} for an unknown id, a non-number, or a type of another event', async () => {
      const otherEvent = await createEvent(server, await createGroup(server, { name: 'Other' }));
      const other = await server.post(`/events/${otherEvent}/registration_types`, VALID);
      for (const id of ['999999', 'abc', String(other.body.id)]) {
        const res = await server.get(`${path()}/${id}`);
        assert.equal(res.status, 404, id);
        assert.deepEqual(res.body, { details: MSG.registrationTypeNotFound });
      }
    });
  });

  describe('GET /events/:event_id/registration_types/', () => {
    it('lists the event\'s types in the envelope, with and without the trailing slash', async () => {
      const event = await createEvent(server, await createGroup(server, { name: 'List Co' }));
      const ids: number[] = [];
      for (const name of ['A', 'B', 'C']) ids.push((await server.post(`/events/${event}/registration_types`, { ...VALID, name })).body.id);
      for (const suffix of ['/', '']) {
        const res = await server.get(`/events/${event}/registration_types${suffix}`);
        assert.equal(res.status, 200, suffix);
        assert.deepEqual(Object.keys(res.body), ['count', 'next', 'previous', 'results']);
        assert.equal(res.body.count, 3);
        assert.deepEqual(res.body.results.map((r: { id: number }) => r.id), ids);
        assert.equal(res.body.results[0].event, event);
      }
      const page = await server.get(`/events/${event}/registration_types/?page=2&page_size=2`);
      assert.equal(page.body.count, 3);
      assert.deepEqual(page.body.results.map((r: { id: number }) => r.id), [ids[2]]);
      assert.equal(page.body.next, null);
      assert.match(page.body.previous, /page_size=2/);
    });

    it('is described once in the OpenAPI document, whose description states the trailing-slash rule', async () => {
      const doc = (await server.get('/openapi.json', { token: null })).body;
      assert.equal(doc.paths['/events/{event_id}/registration_types/'], undefined);
      assert.match(doc.info.description, /with or without one slash at its end/);
      assert.ok(doc.paths['/events/{event_id}/registration_types'].get);
      assert.ok(doc.paths['/events/{event_id}/registration_types'].post);
    });

    it('returns only types modified at or after `timestamp`', async () => {
      const event = await createEvent(server, await createGroup(server, { name: 'Delta Co' }));
      await server.post(`/events/${event}/registration_types`, { ...VALID, name: 'Old' });
      // `timestamp` counts whole seconds: what came before is stamped an hour older than what follows.
      await stampEarlier(server, 'registration_types', { event_id: event });
      const since = new Date().toISOString().slice(0, 19);
      const fresh = await server.post(`/events/${event}/registration_types`, { ...VALID, name: 'New' });
      const res = await server.get(`/events/${event}/registration_types/?timestamp=${since}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.results.map((r: { id: number }) => r.id), [fresh.body.id]);
    });
  });

  describe('PUT /events/:event_id/registration_types/:registration_type_id', () => {
    it('answers 200 {id} and changes only the fields sent (attention on, then off again), modified moving on', async () => {
      const created = await server.post(path(), { ...VALID, price: 10, door: true });
      // `modified` counts whole seconds: stamped an hour back, the PUT's stamp is later.
      await stampEarlier(server, 'registration_types', { id: created.body.id });
      const before = (await server.get(`${path()}/${created.body.id}`)).body;
      const res = await server.put(`${path()}/${created.body.id}`, { attention: true });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { id: created.body.id });
      const after = (await server.get(`${path()}/${created.body.id}`)).body;
      assert.deepEqual({ ...after, modified: undefined }, { ...before, attention: true, modified: undefined });
      assert.ok(after.modified > before.modified);
      assert.equal((await server.put(`${path()}/${created.body.id}/`, { attention: false, name: 'Late bird', price: null, starts: '2026-12-01T10:00' })).status, 200);
      const again = (await server.get(`${path()}/${created.body.id}`)).body;
      assert.deepEqual([again.attention, again.name, again.price, again.starts, again.door, again.description], [false, 'Late bird', null, '2026-12-01T10:00:00', true, VALID.description]);
    });

    it('answers the same 400s as create, changing nothing', async () => {
      const created = await server.post(path(), VALID);
      const url = `${path()}/${created.body.id}`;
      const before = (await server.get(url)).body;
      const bad = async (body: Record<string, unknown>) => {
        const res = await server.put(url, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        return res.body;
      };
      assert.deepEqual(await bad({ name: '  ', type: 'voucher', attention: 'perhaps' }), { name: [MSG.blank], type: [MSG.invalidRegistrationTypeKind], attention: [MSG.invalidBoolean] });
      assert.deepEqual(await bad({ name: null }), { name: [MSG.notNull] });
      assert.deepEqual(await bad({ price: 1.005, starts: '2026-11-01' }), { price: [MSG.priceDecimals], starts: [MSG.datetimeFormat] });
      assert.deepEqual(await bad({ minorder: 5, maxorder: 2, attention: true }), { details: [MSG.registrationTypeIntegrity] });
      assert.deepEqual(await bad({ quantity: -1 }), { details: [MSG.registrationTypeIntegrity] });
      assert.deepEqual((await server.get(url)).body, before);
    });

    it('answers 404 {details} for an unknown id, a non-number, or a type of another event; and 404 {detail} for an unknown event', async () => {
      const otherEvent = await createEvent(server, await createGroup(server, { name: 'Other PUT' }));
      const other = await server.post(`/events/${otherEvent}/registration_types`, VALID);
      for (const id of ['999999', 'abc', String(other.body.id)]) {
        const res = await server.put(`${path()}/${id}`, { attention: true });
        assert.equal(res.status, 404, id);
        assert.deepEqual(res.body, { details: MSG.registrationTypeNotFound });
      }
      assert.equal((await server.get(`/events/${otherEvent}/registration_types/${other.body.id}`)).body.attention, false);
      assert.deepEqual((await server.put(`/events/999999/registration_types/${other.body.id}`, { attention: true })).body, { detail: MSG.eventNotFound });
    });

    it("answers 403 to a door key: the door reads types, the organiser changes them", async () => {
      const groupId = await createGroup(server, { name: 'Door PUT' });
      const event = await createEvent(server, groupId);
      const type = await server.post(`/events/${event}/registration_types`, VALID);
      const doorKey = await createRoleKey(server, groupId, 'door');
      const res = await server.put(`/events/${event}/registration_types/${type.body.id}`, { attention: true }, { token: doorKey });
      assert.equal(res.status, 403);
      assert.deepEqual(res.body, { detail: MSG.roleNotAllowed });
    });
  });

  describe('scope', () => {
    it("answers 404 to another organiser's key on every registration type route", async () => {
      const { a, b } = await twoOrganisers(server);
      const created = await server.post(`/events/${a.eventId}/registration_types`, VALID, { token: a.key });
      assert.equal(created.status, 201);
      const asB = { token: b.key };
      assert.equal((await server.post(`/events/${a.eventId}/registration_types`, VALID, asB)).status, 404);
      assert.equal((await server.get(`/events/${a.eventId}/registration_types/`, asB)).status, 404);
      assert.equal((await server.get(`/events/${a.eventId}/registration_types/${created.body.id}`, asB)).status, 404);
      assert.equal((await server.get(`/events/${b.eventId}/registration_types/${created.body.id}`, asB)).status, 404);
      assert.equal((await server.put(`/events/${a.eventId}/registration_types/${created.body.id}`, { attention: true }, asB)).status, 404);
      assert.equal((await server.put(`/events/${b.eventId}/registration_types/${created.body.id}`, { attention: true }, asB)).status, 404);
      assert.equal((await server.get(`/events/${a.eventId}/registration_types/${created.body.id}`, { token: a.key })).body.attention, false);
    });
  });
});
