import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG, TIMEZONES } from '../../core/messages';
import { MAX_DUPLICATES } from '../../server/schemas/events';
import { createEvent, createGroup, stampEarlier } from '../helpers/fixtures';
import { TestServer } from '../helpers/server';

const VALID = { name: 'Gala', starts: '2026-12-31T20:00', ends: '2027-01-01T02:00', timezone: 'Europe/Amsterdam' };

describe('events', () => {
  let server: TestServer;
  let groupId: number;
  before(async () => {
    server = await TestServer.start();
    groupId = await createGroup(server, { name: 'Events Co', email: 'office@events.test' });
  });
  after(() => server.stop());

  describe('POST /events', () => {
    it('answers 201 {id}; detail returns the fields with seconds added', async () => {
      const res = await server.post('/events', { ...VALID, group_id: groupId });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body), ['id']);
      const detail = await server.get(`/events/${res.body.id}`);
      assert.equal(detail.status, 200);
      const { created, modified, ...rest } = detail.body;
      assert.deepEqual(rest, { id: res.body.id, name: 'Gala', group_id: groupId, timezone: 'Europe/Amsterdam', starts: '2026-12-31T20:00:00', ends: '2027-01-01T02:00:00' });
      assert.match(created, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      assert.match(modified, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    });

    it('accepts every one of the 39 timezones', async () => {
      assert.equal(TIMEZONES.length, 39);
      for (const timezone of TIMEZONES) {
        assert.equal((await server.post('/events', { ...VALID, timezone, group_id: groupId })).status, 201, timezone);
      }
    });

    it('answers 400 {details: "Group not found."} for an unknown group', async () => {
      const res = await server.post('/events', { ...VALID, group_id: 987654 });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { details: MSG.groupNotFound });
    });

    it('answers 400 "This field is required." for each missing field', async () => {
      const res = await server.post('/events', {});
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { name: [MSG.required], starts: [MSG.required], ends: [MSG.required], timezone: [MSG.required], group_id: [MSG.required] });
    });

    it('answers 400 with the valid list for an unknown timezone', async () => {
      const res = await server.post('/events', { ...VALID, timezone: 'Mars/Olympus', group_id: groupId });
      assert.deepEqual(res.body, { timezone: [MSG.invalidTimezone] });
      assert.ok(MSG.invalidTimezone.startsWith('Invalid timezone') && MSG.invalidTimezone.includes('Asia/Kathmandu'));
    });

    it('answers 400 for datetimes in the wrong format', async () => {
      for (const starts of ['2026-12-31', '31-12-2026T20:00', '2026-12-31 20:00', '2026-02-30T20:00', '2026-12-31T25:00', 20261231]) {
        const res = await server.post('/events', { ...VALID, starts, group_id: groupId });
        assert.equal(res.status, 400, String(starts));
        assert.deepEqual(res.body, { starts: [MSG.datetimeFormat] });
      }
    });

    it('answers 400 when the event ends before it starts', async () => {
      const res = await server.post('/events', { ...VALID, ends: '2026-12-30T20:00', group_id: groupId });
      assert.deepEqual(res.body, { ends: [MSG.eventEndsBeforeStart] });
    });
  });

  describe('PUT /events/:event_id', () => {
    it('updates the given fields and answers 200 {id}', async () => {
      const id = await createEvent(server, groupId);
      const res = await server.put(`/events/${id}`, { name: 'Renamed', timezone: 'Asia/Tokyo' });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { id });
      const detail = await server.get(`/events/${id}`);
      assert.equal(detail.body.name, 'Renamed');
      assert.equal(detail.body.timezone, 'Asia/Tokyo');
      assert.equal(detail.body.starts, '2026-12-01T18:00:00');
    });

    it('answers 400 for a bad timezone, an unknown group or a start after the stored end', async () => {
      const id = await createEvent(server, groupId);
      assert.deepEqual((await server.put(`/events/${id}`, { timezone: 'Nowhere' })).body, { timezone: [MSG.invalidTimezone] });
      assert.deepEqual((await server.put(`/events/${id}`, { group_id: 55555 })).body, { details: MSG.groupNotFound });
      assert.deepEqual((await server.put(`/events/${id}`, { starts: '2027-06-01T10:00' })).body, { ends: [MSG.eventEndsBeforeStart] });
    });

    it('answers 404 for an unknown event', async () => {
      const res = await server.put('/events/999999', { name: 'X' });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.eventNotFound });
    });
  });

  describe('GET /events', () => {
    it('lists events in the envelope and filters by group_id', async () => {
      const other = await createGroup(server, { name: 'Other' });
      const mine = await createEvent(server, other, { name: 'Only mine' });
      const res = await server.get(`/events?group_id=${other}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.count, 1);
      assert.deepEqual(Object.keys(res.body.results[0]).sort(), ['created', 'ends', 'group_id', 'id', 'modified', 'name', 'starts', 'timezone']);
      assert.equal(res.body.results[0].id, mine);
      const all = await server.get('/events?page_size=1000');
      assert.ok(all.body.count > 1);
    });

    it('returns only events modified at or after `timestamp` (Unix seconds or ISO)', async () => {
      const before = Math.floor(Date.now() / 1000);
      // `timestamp` counts whole seconds: what came before is stamped an hour older than what follows.
      const older: number[] = await server.db('events').pluck('id');
      await stampEarlier(server, 'events', {});
      const fresh = await createEvent(server, groupId, { name: 'Fresh' });
      const since = Math.floor(Date.now() / 1000) - 1;
      for (const ts of [String(since), new Date(since * 1000).toISOString().slice(0, 19)]) {
        const res = await server.get(`/events?timestamp=${encodeURIComponent(ts)}`);
        assert.equal(res.status, 200);
        assert.ok(res.body.results.some((e: { id: number }) => e.id === fresh));
        assert.ok(!res.body.results.some((e: { id: number }) => older.includes(e.id)), JSON.stringify(res.body.results));
        assert.ok(res.body.results.every((e: { modified: string }) => e.modified >= new Date(since * 1000).toISOString().slice(0, 19)));
      }
      assert.ok((await server.get(`/events?timestamp=${before}`)).body.count >= 1);
      assert.deepEqual((await server.get('/events?timestamp=yesterday')).body, { timestamp: [MSG.invalidTimestamp] });
    });
  });

  describe('GET /events/:event_id', () => {
    it('answers 404 {detail: "Event not found."} for an unknown event', async () => {
      const res = await server.get('/events/31337');
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.eventNotFound });
    });

    it('answers the same 404 for an id that is not a plain number (abc, 1.0, 0x1, 0, 99999999999999999999)', async () => {
      const id = await createEvent(server, groupId);
      for (const junk of ['abc', `${id}.0`, `0x${id.toString(16)}`, `${id}e0`, '0', '99999999999999999999', '1e309']) {
        for (const path of [`/events/${junk}`, `/events/${junk}/`, `/events/${junk}/guests`]) {
          const res = await server.get(path);
          assert.equal(res.status, 404, path);
          assert.deepEqual(res.body, { detail: MSG.eventNotFound }, path);
        }
      }
    });
  });

  describe('POST /events/:event_id/duplicate_event', () => {
    it('makes one copy by default and answers 200 {new_event_ids}', async () => {
      const id = await createEvent(server, groupId, { name: 'Original' });
      const res = await server.post(`/events/${id}/duplicate_event`, {});
      assert.equal(res.status, 200);
      assert.equal(res.body.new_event_ids.length, 1);
      const copy = await server.get(`/events/${res.body.new_event_ids[0]}`);
      assert.equal(copy.body.name, 'Original (copy)');
      assert.equal(copy.body.group_id, groupId);
    });

    it('names every copy apart from its source and the group\'s other events, or as the client says', async () => {
      const id = await createEvent(server, groupId, { name: 'Festival' });
      const nameOf = async (eventId: number) => (await server.get(`/events/${eventId}`)).body.name;
      const first = await server.post(`/events/${id}/duplicate_event`, { quantity: 2 });
      assert.deepEqual(await Promise.all(first.body.new_event_ids.map(nameOf)), ['Festival (copy)', 'Festival (copy 2)']);
      const second = await server.post(`/events/${id}/duplicate_event`, {});
      assert.deepEqual(await Promise.all(second.body.new_event_ids.map(nameOf)), ['Festival (copy 3)']);
      const named = await server.post(`/events/${id}/duplicate_event`, { name: 'Festival 2027', quantity: 2 });
      assert.deepEqual(await Promise.all(named.body.new_event_ids.map(nameOf)), ['Festival 2027', 'Festival 2027 (2)']);
      const long = await createEvent(server, groupId, { name: 'L'.repeat(255) });
      const [longCopy] = (await server.post(`/events/${long}/duplicate_event`, {})).body.new_event_ids;
      assert.equal(await nameOf(longCopy), `${'L'.repeat(248)} (copy)`);
      const [mail] = await server.db('outbox').orderBy('id', 'desc').limit(1);
      assert.equal(mail.subject, `Event "${'L'.repeat(199)}…" duplicated`);
      const before = (await server.db('events').count({ n: '*' }))[0].n;
      assert.deepEqual((await server.post(`/events/${id}/duplicate_event`, { name: '' })).status, 400);
      assert.equal((await server.db('events').count({ n: '*' }))[0].n, before);
    });

    it('deep-copies the configuration with new ids and uids, never guests or check-ins', async () => {
      const id = await createEvent(server, groupId, { name: 'Configured' });
      const db = server.db;
      const now = new Date().toISOString();
      const rec = (uid: string) => ({ uid, created: now, modified: now });
      const [type] = await db('registration_types').insert({ ...rec(`rt-${id}`), event_id: id, name: 'VIP', description: 'Front row', price: 12.5 }).returning('id');
      const [question] = await db('custom_questions').insert({ ...rec(`q-${id}`), event_id: id, question: 'Diet?', type: 'radio' }).returning('id');
      await db('question_choices').insert([{ ...rec(`c1-${id}`), question_id: question.id, answer: 'Vegan' }, { ...rec(`c2-${id}`), question_id: question.id, answer: 'None' }]);
      const [track] = await db('tracks').insert({ ...rec(`t-${id}`), event_id: id, name: 'Main', starts: '2026-12-01T18:00:00', ends: '2026-12-01T22:00:00' }).returning('id');
      const [session] = await db('sessions').insert({ ...rec(`s-${id}`), event_id: id, track_id: track.id, name: 'Keynote', starts: '2026-12-01T18:00:00', ends: '2026-12-01T19:00:00' }).returning('id');
      await db('session_tags').insert({ ...rec(`st-${id}`), session_id: session.id, tag: 'main' });
      const [code] = await db('promotion_codes').insert({ ...rec(`p-${id}`), event_id: id, code: 'EARLY', discount_type: 'percent', discount_amount: 10, quantity: 5 }).returning('id');
      await db('promotion_code_registration_types').insert({ ...rec(`pl-${id}`), promotion_code_id: code.id, registration_type_id: type.id });
      await db('guests').insert({ ...rec(`g-${id}`), event_id: id, registration_type_id: type.id, first_name: 'Ann', last_name: 'Lee', email: 'a@l.test', barcode: `B-${id}` });

      const res = await server.post(`/events/${id}/duplicate_event`, { quantity: 2 });
      assert.equal(res.status, 200);
      assert.equal(res.body.new_event_ids.length, 2);
      for (const copyId of res.body.new_event_ids) {
        const [copyType] = await db('registration_types').where({ event_id: copyId });
        assert.equal(copyType.name, 'VIP');
        assert.notEqual(copyType.uid, `rt-${id}`);
        const [copyQuestion] = await db('custom_questions').where({ event_id: copyId });
        assert.deepEqual(await db('question_choices').where({ question_id: copyQuestion.id }).pluck('answer'), ['Vegan', 'None']);
        const [copyTrack] = await db('tracks').where({ event_id: copyId });
        const [copySession] = await db('sessions').where({ event_id: copyId });
        assert.equal(copySession.track_id, copyTrack.id);
        assert.deepEqual(await db('session_tags').where({ session_id: copySession.id }).pluck('tag'), ['main']);
        const [copyCode] = await db('promotion_codes').where({ event_id: copyId });
        assert.deepEqual(await db('promotion_code_registration_types').where({ promotion_code_id: copyCode.id }).pluck('registration_type_id'), [copyType.id]);
        assert.equal((await db('guests').where({ event_id: copyId })).length, 0);
      }
    });

    it('writes the information e-mail to the outbox for the group e-mail', async () => {
      const id = await createEvent(server, groupId, { name: 'Mailed' });
      await server.post(`/events/${id}/duplicate_event`, { quantity: 1 });
      const mail = await server.db('outbox').orderBy('id', 'desc').first();
      assert.equal(mail.recipient, 'office@events.test');
      assert.match(mail.subject, /Mailed/);
      assert.equal(mail.sent_at, null);
    });

    it('answers 404 {detail: "Event not found."} for an unknown event', async () => {
      const res = await server.post('/events/777777/duplicate_event', { quantity: 1 });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.eventNotFound });
    });

    it('answers 404 {detail: "Event not found."} for an event id that is not a number', async () => {
      for (const junk of ['abc', '99999999999999999999', '1e309', '-1']) {
        const res = await server.post(`/events/${junk}/duplicate_event`, { quantity: 1 });
        assert.equal(res.status, 404, junk);
        assert.deepEqual(res.body, { detail: MSG.eventNotFound }, junk);
      }
    });

    it('takes quantity as a query parameter too, the body winning', async () => {
      const id = await createEvent(server, groupId);
      assert.equal((await server.post(`/events/${id}/duplicate_event?quantity=2`)).body.new_event_ids.length, 2);
      assert.equal((await server.post(`/events/${id}/duplicate_event?quantity=2`, { quantity: 1 })).body.new_event_ids.length, 1);
      assert.deepEqual((await server.post(`/events/${id}/duplicate_event?quantity=abc`)).body, { quantity: [MSG.invalidInteger] });
    });

    it(`answers 400 for a quantity below 1, above ${MAX_DUPLICATES} or not an integer, copying nothing`, async () => {
      const id = await createEvent(server, groupId);
      const before = (await server.db('events').count({ n: '*' }))[0].n;
      for (const quantity of [0, MAX_DUPLICATES + 1, 'many', 1.5]) {
        const res = await server.post(`/events/${id}/duplicate_event`, { quantity });
        assert.equal(res.status, 400, String(quantity));
        assert.ok(Array.isArray(res.body.quantity));
      }
      assert.equal((await server.db('events').count({ n: '*' }))[0].n, before);
    });
  });
});
