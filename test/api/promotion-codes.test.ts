import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createEvent, createGroup, twoOrganisers } from '../helpers/fixtures';
import { TestServer } from '../helpers/server';

const CODE = { code: 'EARLY', discount_type: 'percent', discount_amount: 15, quantity: 100 };
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

describe('promotion codes', () => {
  let server: TestServer;
  let eventId: number;
  before(async () => {
    server = await TestServer.start();
    eventId = await createEvent(server, await createGroup(server));
  });
  after(() => server.stop());

  async function createType(event: number, name = 'Standard'): Promise<number> {
    const res = await server.post(`/events/${event}/registration_types`, { type: 'ticket', name, description: 'Entry' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id;
  }

  let counter = 0;
  async function createCode(event: number, fields: Record<string, unknown> = {}): Promise<number> {
    const res = await server.post(`/events/${event}/promotion_codes`, { ...CODE, code: `CODE${++counter}`, ...fields });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id;
  }

  describe('POST /events/:event_id/promotion_codes', () => {
    it('answers 201 {id}; the record returns its fields plus id, event, used, created, modified', async () => {
      const vip = await createType(eventId, 'VIP');
      const standard = await createType(eventId, 'Standard');
      const res = await server.post(`/events/${eventId}/promotion_codes`, {
        ...CODE,
        discount_amount: '12.5',
        starts: '2026-11-01T00:00',
        ends: '2026-11-30T23:59',
        registration_types: [vip, standard, vip],
        available_only: true,
      });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body), ['id']);
      const detail = await server.get(`/events/${eventId}/promotion_codes/${res.body.id}`);
      assert.equal(detail.status, 200);
      const { created, modified, ...rest } = detail.body;
      assert.deepEqual(rest, {
        id: res.body.id,
        event: eventId,
        code: 'EARLY',
        discount_type: 'percent',
        discount_amount: '12.50',
        quantity: 100,
        used: 0,
        starts: '2026-11-01T00:00:00',
        ends: '2026-11-30T23:59:00',
        registration_types: [vip, standard].sort((x, y) => x - y),
        available_only: true,
      });
      assert.match(created, DATETIME);
      assert.match(modified, DATETIME);
    });

    it('defaults: no dates, no registration types, available_only false; a flat amount keeps two decimals', async () => {
      const id = await createCode(eventId, { discount_type: 'flat', discount_amount: 7.25 });
      const detail = (await server.get(`/events/${eventId}/promotion_codes/${id}`)).body;
      assert.equal(detail.discount_amount, '7.25');
      assert.equal(detail.starts, null);
      assert.equal(detail.ends, null);
      assert.deepEqual(detail.registration_types, []);
      assert.equal(detail.available_only, false);
    });

    it('answers 400 "This field is required." for code, discount_type, discount_amount and quantity', async () => {
      const res = await server.post(`/events/${eventId}/promotion_codes`, {});
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { code: [MSG.required], discount_type: [MSG.required], discount_amount: [MSG.required], quantity: [MSG.required] });
    });

    it('answers 400 for an unknown discount_type, a bad amount, a negative quantity or a wrong date', async () => {
      const res = await server.post(`/events/${eventId}/promotion_codes`, { code: ' ', discount_type: 'free', discount_amount: 'lots', quantity: -1, starts: '2026-11-01', registration_types: 'all', available_only: 'sure' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        code: [MSG.blank],
        discount_type: [MSG.invalidDiscountType],
        discount_amount: [MSG.invalidNumber],
        quantity: ['Ensure this value is greater than or equal to 0.'],
        starts: [MSG.datetimeFormat],
        registration_types: [MSG.invalidList],
        available_only: [MSG.invalidBoolean],
      });
      assert.deepEqual((await server.post(`/events/${eventId}/promotion_codes`, { ...CODE, code: 'NEG', discount_amount: -1 })).body, { discount_amount: ['Ensure this value is greater than or equal to 0.'] });
      assert.deepEqual((await server.post(`/events/${eventId}/promotion_codes`, { ...CODE, code: 'DEC', discount_amount: 1.005 })).body, { discount_amount: [MSG.decimalPlaces] });
    });

    it('answers 400 {discount_amount} for a percent above 100; exactly 100 and a large flat amount are fine', async () => {
      const res = await server.post(`/events/${eventId}/promotion_codes`, { ...CODE, code: 'TOO-MUCH', discount_amount: 100.01 });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { discount_amount: [MSG.percentOver100] });
      await createCode(eventId, { discount_amount: 100 });
      await createCode(eventId, { discount_type: 'flat', discount_amount: 250 });
    });

    it('answers 400 {ends} when the code ends before it starts', async () => {
      const res = await server.post(`/events/${eventId}/promotion_codes`, { ...CODE, code: 'BACKWARDS', starts: '2026-11-02T00:00', ends: '2026-11-01T00:00' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { ends: [MSG.promotionCodeEndsBeforeStart] });
    });

    it('answers 400 {registration_types} for a type of another event or an unknown one, writing nothing', async () => {
      const otherEvent = await createEvent(server, await createGroup(server, { name: 'Other' }));
      const foreign = await createType(otherEvent);
      const own = await createType(eventId);
      for (const registration_types of [[own, foreign], [987654]]) {
        const res = await server.post(`/events/${eventId}/promotion_codes`, { ...CODE, code: 'WRONG-TYPE', registration_types });
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { registration_types: [MSG.eventHasNoRegistrationType] });
      }
      const list = await server.get(`/events/${eventId}/promotion_codes?page_size=1000`);
      assert.ok(list.body.results.every((c: { code: string }) => c.code !== 'WRONG-TYPE'));
    });

    it('answers 400 {code} for a code the event already has; another event may use it', async () => {
      await createCode(eventId, { code: 'TWICE' });
      const res = await server.post(`/events/${eventId}/promotion_codes`, { ...CODE, code: 'TWICE' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { code: [MSG.promotionCodeExists] });
      const otherEvent = await createEvent(server, await createGroup(server, { name: 'Same code elsewhere' }));
      await createCode(otherEvent, { code: 'TWICE' });
    });

    it('admits exactly one of many concurrent creates of the same code', async () => {
      const results = await Promise.all(Array.from({ length: 8 }, () => server.post(`/events/${eventId}/promotion_codes`, { ...CODE, code: 'RACE' })));
      assert.equal(results.filter((r) => r.status === 201).length, 1);
      for (const r of results.filter((r) => r.status !== 201)) {
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { code: [MSG.promotionCodeExists] });
      }
    });

    it('answers 404 for an unknown event', async () => {
      const res = await server.post('/events/999999/promotion_codes', CODE);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.eventNotFound });
    });
  });

  describe('GET /events/:event_id/promotion_codes', () => {
    it('lists the codes of the event in the envelope, paged, with timestamp deltas', async () => {
      const event = await createEvent(server, await createGroup(server, { name: 'Listed codes' }));
      const type = await createType(event);
      const ids = [await createCode(event, { registration_types: [type] }), await createCode(event), await createCode(event)];
      const all = await server.get(`/events/${event}/promotion_codes`);
      assert.equal(all.status, 200);
      assert.equal(all.body.count, 3);
      assert.equal(all.body.next, null);
      assert.equal(all.body.previous, null);
      assert.deepEqual(all.body.results.map((c: { id: number }) => c.id), ids);
      assert.deepEqual(all.body.results[0].registration_types, [type]);
      assert.deepEqual(Object.keys(all.body.results[0]).sort(), [
        'available_only', 'code', 'created', 'discount_amount', 'discount_type', 'ends', 'event', 'id', 'modified', 'quantity', 'registration_types', 'starts', 'used',
      ]);
      const page2 = await server.get(`/events/${event}/promotion_codes?page=2&page_size=2`);
      assert.deepEqual(page2.body.results.map((c: { id: number }) => c.id), [ids[2]]);
      const future = Math.floor(Date.now() / 1000) + 3600;
      assert.equal((await server.get(`/events/${event}/promotion_codes?timestamp=${future}`)).body.count, 0);
    });
  });

  describe('GET /events/:event_id/promotion_codes/:promotion_code_id', () => {
    it('answers 404 {detail: "Promotion code not found."} for an unknown id, a non-numeric id, or a code of another event', async () => {
      const otherEvent = await createEvent(server, await createGroup(server, { name: 'Code elsewhere' }));
      const foreign = await createCode(otherEvent);
      for (const id of ['999999', 'abc', String(foreign)]) {
        const res = await server.get(`/events/${eventId}/promotion_codes/${id}`);
        assert.equal(res.status, 404, id);
        assert.deepEqual(res.body, { detail: MSG.promotionCodeNotFound });
      }
    });
  });

  describe('PUT /events/:event_id/promotion_codes/:promotion_code_id', () => {
    it('updates the given fields, replaces the registration types, and answers 200 {id}', async () => {
      const a = await createType(eventId, 'A');
      const b = await createType(eventId, 'B');
      const id = await createCode(eventId, { registration_types: [a], starts: '2026-11-01T00:00' });
      const res = await server.put(`/events/${eventId}/promotion_codes/${id}`, { code: 'RENAMED', discount_type: 'flat', discount_amount: '5', registration_types: [b], quantity: 3 });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { id });
      const detail = (await server.get(`/events/${eventId}/promotion_codes/${id}`)).body;
      assert.equal(detail.code, 'RENAMED');
      assert.equal(detail.discount_type, 'flat');
      assert.equal(detail.discount_amount, '5.00');
      assert.equal(detail.quantity, 3);
      assert.deepEqual(detail.registration_types, [b]);
      assert.equal(detail.starts, '2026-11-01T00:00:00');
      await server.put(`/events/${eventId}/promotion_codes/${id}`, { registration_types: null, starts: null });
      const cleared = (await server.get(`/events/${eventId}/promotion_codes/${id}`)).body;
      assert.deepEqual(cleared.registration_types, []);
      assert.equal(cleared.starts, null);
    });

    it('checks the rules against the stored values: percent over 100, ends before starts', async () => {
      const flat = await createCode(eventId, { discount_type: 'flat', discount_amount: 150 });
      assert.deepEqual((await server.put(`/events/${eventId}/promotion_codes/${flat}`, { discount_type: 'percent' })).body, { discount_amount: [MSG.percentOver100] });
      const dated = await createCode(eventId, { starts: '2026-11-10T00:00' });
      assert.deepEqual((await server.put(`/events/${eventId}/promotion_codes/${dated}`, { ends: '2026-11-09T00:00' })).body, { ends: [MSG.promotionCodeEndsBeforeStart] });
      const detail = (await server.get(`/events/${eventId}/promotion_codes/${flat}`)).body;
      assert.equal(detail.discount_type, 'flat');
    });

    it('answers 400 {quantity} below the uses so far', async () => {
      const id = await createCode(eventId, { quantity: 10 });
      await server.db('promotion_codes').where({ id }).update({ used: 4 });
      assert.deepEqual((await server.put(`/events/${eventId}/promotion_codes/${id}`, { quantity: 3 })).body, { quantity: [MSG.quantityBelowUsed(4)] });
      assert.equal((await server.put(`/events/${eventId}/promotion_codes/${id}`, { quantity: 4 })).status, 200);
    });

    it('answers 400 {code} when renamed onto another code of the event, and for foreign registration types', async () => {
      await createCode(eventId, { code: 'TAKEN' });
      const id = await createCode(eventId);
      assert.deepEqual((await server.put(`/events/${eventId}/promotion_codes/${id}`, { code: 'TAKEN' })).body, { code: [MSG.promotionCodeExists] });
      assert.deepEqual((await server.put(`/events/${eventId}/promotion_codes/${id}`, { registration_types: [987654] })).body, { registration_types: [MSG.eventHasNoRegistrationType] });
    });

    it('answers 404 for an unknown code', async () => {
      const res = await server.put(`/events/${eventId}/promotion_codes/999999`, { quantity: 1 });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.promotionCodeNotFound });
    });
  });

  describe('DELETE /events/:event_id/promotion_codes/:promotion_code_id', () => {
    it('answers 204 with no body, then 404', async () => {
      const type = await createType(eventId);
      const id = await createCode(eventId, { registration_types: [type] });
      const res = await server.delete(`/events/${eventId}/promotion_codes/${id}`);
      assert.equal(res.status, 204);
      assert.equal(res.body, '');
      assert.equal((await server.db('promotion_code_registration_types').where({ promotion_code_id: id })).length, 0);
      assert.deepEqual((await server.delete(`/events/${eventId}/promotion_codes/${id}`)).body, { detail: MSG.promotionCodeNotFound });
    });
  });

  describe('scope', () => {
    it("answers 404 to another organiser's key on every route and refuses its registration types", async () => {
      const { a, b } = await twoOrganisers(server);
      const id = await createCode(a.eventId, { code: 'PRIVATE' });
      const opts = { token: b.key };
      assert.deepEqual((await server.post(`/events/${a.eventId}/promotion_codes`, CODE, opts)).body, { detail: MSG.eventNotFound });
      assert.equal((await server.get(`/events/${a.eventId}/promotion_codes`, opts)).status, 404);
      assert.equal((await server.get(`/events/${a.eventId}/promotion_codes/${id}`, opts)).status, 404);
      assert.equal((await server.put(`/events/${a.eventId}/promotion_codes/${id}`, { quantity: 1 }, opts)).status, 404);
      assert.equal((await server.delete(`/events/${a.eventId}/promotion_codes/${id}`, opts)).status, 404);
      assert.deepEqual((await server.get(`/events/${b.eventId}/promotion_codes/${id}`, opts)).body, { detail: MSG.promotionCodeNotFound });
      const typeOfA = await createType(a.eventId);
      const res = await server.post(`/events/${b.eventId}/promotion_codes`, { ...CODE, registration_types: [typeOfA] }, opts);
      assert.deepEqual(res.body, { registration_types: [MSG.eventHasNoRegistrationType] });
      assert.equal((await server.get(`/events/${a.eventId}/promotion_codes/${id}`, { token: a.key })).body.code, 'PRIVATE');
    });
  });
});
