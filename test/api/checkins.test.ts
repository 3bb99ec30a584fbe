import { toApiDatetime } from '../../core/time';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createEvent, createGroup, twoOrganisers } from '../helpers/fixtures';
import { countCheckins, createSession, guestState, scan, seedGuests, seedRegistrationType } from '../helpers/checkins';
import { TestServer } from '../helpers/server';
import { listCheckins } from '../../db/repositories/checkins';
import { recordScans, type ScanRequest } from '../../server/services/scans';
import { writeTransaction } from '../../db/write-transaction';
import { TEST_PG } from '../helpers/database';

const API_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

describe('check-ins', () => {
  let server: TestServer;
  let eventId: number;
  let typeId: number;
  let counter = 0;

  before(async () => {
    server = await TestServer.start();
    eventId = await createEvent(server, await createGroup(server));
    typeId = await seedRegistrationType(server, eventId, 'VIP');
  });
  after(() => server.stop());

  /** A fresh guest of the shared event (each test its own, so tests stay independent). */
  async function newGuest(fields: Record<string, unknown> = {}) {
    counter += 1;
    const barcode = `BC${String(counter).padStart(5, '0')}`;
    const [id] = await seedGuests(server, eventId, typeId, [
      { first_name: 'Grace', last_name: `Hopper ${counter}`, email: `grace${counter}@navy.test`, company: 'Navy', barcode, ...fields },
    ]);
    const summary = {
      id,
      first_name: 'Grace',
      last_name: `Hopper ${counter}`,
      email: `grace${counter}@navy.test`,
      company: 'Navy',
      registration_type: typeId,
      registration_type_name: 'VIP',
      barcode: (fields.barcode as string) ?? barcode,
      attention: false,
      notes: null,
      registration_type_attention: false,
      door_answers: [],
    };
    return { id, barcode: summary.barcode, summary };
  }

  describe('POST /events/:event_id/checkins', () => {
    it('answers 201 checked_in with the full body and marks the guest in', async () => {
      const guest = await newGuest();
      const before = await guestState(server, guest.id);
      const res = await scan(server, eventId, { barcode: guest.barcode, uid: 'scan-first-1', scanned_at: '2026-12-01T18:02:07', station: 'Door A' });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(typeof res.body.id, 'number');
      assert.deepEqual(res.body, {
        id: res.body.id,
        uid: 'scan-first-1',
        guest_id: guest.id,
        session_id: null,
        direction: 'in',
        status: 'checked_in',
        scanned_at: '2026-12-01T18:02:07',
        station: 'Door A',
        guest: guest.summary,
      });
      const after = await guestState(server, guest.id);
      assert.equal(after.checked_in_at, '2026-12-01T18:02:07');
      assert.ok(after.modified > before.modified, 'modified moves so door laptops re-sync the guest');
      const row = await server.db('checkins').where({ id: res.body.id }).first();
      assert.equal(toApiDatetime(row.scanned_at), '2026-12-01T18:02:07');
      assert.match(row.created, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });

    it('finds the guest by nfc_tag and by guest_id; a scan without uid or time gets a UUID and now', async () => {
      const byTag = await newGuest({ nfc_tag: '04:A2:19:7F' });
      // Now: between the second the scan was sent in and the moment it was answered.
      const sent = Math.floor(Date.now() / 1000) * 1000;
      const res = await scan(server, eventId, { nfc_tag: '04:A2:19:7F' });
      const answered = Date.now();
      assert.equal(res.status, 201);
      assert.match(res.body.uid, /^[0-9a-f-]{36}$/);
      assert.match(res.body.scanned_at, API_DATETIME);
      const scannedAt = Date.parse(`${res.body.scanned_at}Z`);
      assert.ok(sent <= scannedAt && scannedAt <= answered, `${res.body.scanned_at} between ${new Date(sent).toISOString()} and ${new Date(answered).toISOString()}`);
      assert.equal(res.body.station, null);
      assert.equal(res.body.guest_id, byTag.id);

      const byId = await newGuest();
      const res2 = await scan(server, eventId, { guest_id: byId.id });
      assert.equal(res2.status, 201);
      assert.deepEqual(res2.body.guest, byId.summary);
    });

    it('takes a numeric barcode or NFC tag as its digits, as guest create does', async () => {
      const created = await server.post(`/events/${eventId}/guests`, {
        registration_type: typeId,
        first_name: 'Numeric',
        last_name: 'Codes',
        email: 'numeric@codes.test',
        barcode: 4006381333931,
        nfc_tag: 1234567,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const res = await scan(server, eventId, { barcode: 4006381333931 });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.guest.barcode, '4006381333931');
      const again = await scan(server, eventId, { nfc_tag: 1234567 });
      assert.equal(again.status, 409);
      assert.equal(again.body.guest.id, created.body.id);
    });

    it('answers 409 already_checked_in with where the guest came in (checked_in_station)', async () => {
      const guest = await newGuest();
      assert.equal((await scan(server, eventId, { barcode: guest.barcode, station: 'North door', scanned_at: '2026-12-01T18:12' })).status, 201);
      const res = await scan(server, eventId, { barcode: guest.barcode, station: 'South door' });
      assert.deepEqual(res.body, {
        details: MSG.guestAlreadyCheckedIn,
        status: 'already_checked_in',
        checked_in_at: '2026-12-01T18:12:00',
        checked_in_station: 'North door',
        guest: guest.summary,
      });
    });

    it('answers scans sent together: a guest admitted once, a uid answered once, an unknown code 404', async () => {
      const [first, second] = [await newGuest(), await newGuest()];
      const atDoorA = { barcode: first.barcode, station: 'Door A', scanned_at: '2026-12-01T19:00:00' };
      const sent = [
        { ...atDoorA, uid: 'together-1' },
        atDoorA,
        { ...atDoorA, uid: 'together-1' },
        { barcode: second.barcode, station: 'Door B', scanned_at: '2026-12-01T19:00:05' },
        { barcode: 'NO-SUCH-CODE', uid: 'together-2' },
      ];
      const [withUid, withoutUid, replay, other, unknown] = await Promise.all(sent.map((body) => scan(server, eventId, body)));
      // Whichever of the two scans of the first guest came first admits; the other is turned away.
      const statuses = [withUid.status, withoutUid.status].sort();
      assert.deepEqual(statuses, [201, 409]);
      const turnedAway = withUid.status === 409 ? withUid : withoutUid;
      assert.deepEqual(turnedAway.body, {
        details: MSG.guestAlreadyCheckedIn,
        status: 'already_checked_in',
        checked_in_at: '2026-12-01T19:00:00',
        checked_in_station: 'Door A',
        guest: first.summary,
      });
      assert.deepEqual(replay, withUid);
      assert.equal(other.status, 201);
      assert.equal(other.body.guest_id, second.id);
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { details: MSG.guestNotFound, status: 'not_found' });
      const admitted = await server.db('checkins').where({ guest_id: first.id });
      assert.equal(admitted.length, 1);
      // The ids answered are the stored check-ins', and a uid sent again later gets the remembered answer.
      assert.equal((withUid.status === 201 ? withUid : withoutUid).body.id, admitted[0].id);
      assert.equal(other.body.id, (await server.db('checkins').where({ guest_id: second.id }).first()).id);
      assert.deepEqual(await scan(server, eventId, { ...atDoorA, uid: 'together-1' }), withUid);
      assert.deepEqual(await scan(server, eventId, { barcode: 'NO-SUCH-CODE', uid: 'together-2' }), unknown);
    });

    it('finds a batch\'s guests by barcode, NFC tag and id each by its own index, never by walking the event', async () => {
      const [byBarcode, byTag, byId] = [await newGuest(), await newGuest({ nfc_tag: 'NFC-BATCH-1' }), await newGuest()];
      const statements: { sql: string; bindings: readonly (string | number)[] }[] = [];
      const listen = (q: { sql: string; bindings: readonly (string | number)[] }) => statements.push(q);
      server.db.on('query', listen);
      const batch: ScanRequest[] = [
        { barcode: byBarcode.barcode },
        { nfcTag: 'NFC-BATCH-1' },
        { guestId: byId.id },
      ].map((code) => ({ eventId, scope: null, input: { ...code, direction: 'in', station: 'Door M', uid: `mixed-${code.barcode ?? code.nfcTag ?? code.guestId}` } }));
      const answers = await writeTransaction(server.db, (trx) => recordScans(trx, batch)).finally(() => server.db.off('query', listen));
      assert.deepEqual(
        answers.map((a) => ('status' in a ? [a.status, a.body.guest_id] : a)),
        [byBarcode, byTag, byId].map((g) => ['checked_in', g.id]),
      );
      if (TEST_PG) return;
      // On SQLite, which plans without statistics: no statement of the batch reads every guest of the event.
      const guestReads = statements.filter((q) => /from `guests` as `g`/.test(q.sql) && !/^update/i.test(q.sql));
      for (const q of guestReads) {
        const plan = ((await server.db.raw(`EXPLAIN QUERY PLAN ${q.sql}`, q.bindings)) as { detail: string }[]).map((r) => r.detail).join('\n');
        assert.match(plan, /SEARCH g USING (INDEX guests_event_barcode_unique \(event_id=\? AND barcode=\?\)|INDEX guests_event_nfc_tag_unique \(event_id=\? AND nfc_tag=\?\)|INTEGER PRIMARY KEY \(rowid=\?\))/, plan);
      }
      assert.equal(guestReads.length, 3);
    });

    it('admits a guest named twice in one batch, by barcode and by id, once', async () => {
      const guest = await newGuest();
      const batch: ScanRequest[] = [{ barcode: guest.barcode }, { guestId: guest.id }].map((code, k) => ({
        eventId,
        scope: null,
        input: { ...code, direction: 'in', station: 'Door T', uid: `twice-${guest.id}-${k}` },
      }));
      const answers = await writeTransaction(server.db, (trx) => recordScans(trx, batch));
      assert.deepEqual(
        answers.map((a) => ('status' in a ? a.status : a)),
        ['checked_in', 'already_checked_in'],
      );
      assert.equal((await server.db('checkins').where({ guest_id: guest.id })).length, 1);
    });

    it('finds a guest\'s own scans by the guest, never among every scan of the event', async () => {
      const guest = await newGuest();
      assert.equal((await scan(server, eventId, { barcode: guest.barcode, station: 'Door S' })).status, 201);
      const statements: { sql: string; bindings: readonly (string | number)[] }[] = [];
      const listen = (q: { sql: string; bindings: readonly (string | number)[] }) => statements.push(q);
      server.db.on('query', listen);
      try {
        // Scanned again: the batch looks up where the guest came in, for the refusal.
        const batch: ScanRequest[] = [{ eventId, scope: null, input: { barcode: guest.barcode, direction: 'in', uid: `standing-${guest.id}` } }];
        const [answer] = await writeTransaction(server.db, (trx) => recordScans(trx, batch));
        assert.ok('status' in answer && answer.status === 'already_checked_in' && answer.body.checked_in_station === 'Door S');
        // And the guest's scans as GET /events/:id/checkins?guest_id= lists them.
        assert.equal((await listCheckins(server.db, eventId, { guestId: guest.id }, { limit: 10, offset: 0 })).count, 1);
      } finally {
        server.db.off('query', listen);
      }
      if (TEST_PG) return;
      const byGuest = statements.filter((q) => /from `checkins`/.test(q.sql) && /`guest_id` (in|=)/.test(q.sql));
      assert.equal(byGuest.length, 3, byGuest.map((q) => q.sql).join('\n'));
      for (const q of byGuest) {
        const plan = ((await server.db.raw(`EXPLAIN QUERY PLAN ${q.sql}`, q.bindings)) as { detail: string }[]).map((r) => r.detail).join('\n');
        assert.doesNotMatch(plan, /SEARCH checkins USING (COVERING )?INDEX \w+ \(event_id=/, `${q.sql}\n${plan}`);
      }
    });

    it('answers 409 already_checked_in with checked_in_at and the guest on a second scan', async () => {
      const guest = await newGuest();
      assert.equal((await scan(server, eventId, { barcode: guest.barcode, scanned_at: '2026-12-01T18:10' })).status, 201);
      const res = await scan(server, eventId, { barcode: guest.barcode });
      assert.equal(res.status, 409);
      assert.deepEqual(res.body, {
        details: MSG.guestAlreadyCheckedIn,
        status: 'already_checked_in',
        checked_in_at: '2026-12-01T18:10:00',
        checked_in_station: null,
        guest: guest.summary,
      });
      assert.equal((await server.db('checkins').where({ guest_id: guest.id })).length, 1);
    });

    it('answers 201 checked_out for direction out, then 409 not_checked_in with the guest, then lets them in again', async () => {
      const guest = await newGuest();
      const notIn = await scan(server, eventId, { barcode: guest.barcode, direction: 'out' });
      assert.equal(notIn.status, 409);
      assert.deepEqual(notIn.body, { details: MSG.guestNotCheckedIn, status: 'not_checked_in', guest: guest.summary });

      assert.equal((await scan(server, eventId, { barcode: guest.barcode })).status, 201);
      const out = await scan(server, eventId, { barcode: guest.barcode, direction: 'out', station: 'Exit' });
      assert.equal(out.status, 201);
      assert.equal(out.body.status, 'checked_out');
      assert.equal(out.body.direction, 'out');
      assert.equal(out.body.station, 'Exit');
      assert.equal((await guestState(server, guest.id)).checked_in_at, null);

      const again = await scan(server, eventId, { barcode: guest.barcode, direction: 'out' });
      assert.equal(again.status, 409);
      assert.equal(again.body.status, 'not_checked_in');
      const back = await scan(server, eventId, { barcode: guest.barcode });
      assert.equal(back.status, 201);
      assert.equal(back.body.status, 'checked_in');
    });

    it('answers 404 not_found for an unknown code or id, with no guest', async () => {
      for (const body of [{ barcode: 'NO-SUCH-CODE' }, { nfc_tag: 'FF:FF' }, { guest_id: 999999 }]) {
        const res = await scan(server, eventId, body);
        assert.equal(res.status, 404, JSON.stringify(body));
        assert.deepEqual(res.body, { details: MSG.guestNotFound, status: 'not_found' });
      }
    });

    it("answers 404 not_found for another event's guest, even of the same organiser", async () => {
      const otherEvent = await createEvent(server, await createGroup(server));
      const otherType = await seedRegistrationType(server, otherEvent);
      const [otherGuest] = await seedGuests(server, otherEvent, otherType, [{ barcode: 'OTHER-EVENT-1' }]);
      for (const body of [{ barcode: 'OTHER-EVENT-1' }, { guest_id: otherGuest }]) {
        const res = await scan(server, eventId, body);
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { details: MSG.guestNotFound, status: 'not_found' });
      }
    });

    it('answers 400 inactive with the guest; an inactive guest who is in can still be let out', async () => {
      const guest = await newGuest({ objstatus: 2 });
      const res = await scan(server, eventId, { barcode: guest.barcode });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { details: MSG.guestInactive, status: 'inactive', guest: guest.summary });
      assert.equal((await guestState(server, guest.id)).checked_in_at, null);

      const inside = await newGuest();
      assert.equal((await scan(server, eventId, { barcode: inside.barcode })).status, 201);
      await server.db('guests').where({ id: inside.id }).update({ objstatus: 2 });
      assert.equal((await scan(server, eventId, { barcode: inside.barcode, direction: 'out' })).status, 201);
    });

    it('answers 404 {detail: "Session not found."} for a session of no or another event', async () => {
      const guest = await newGuest();
      const otherEvent = await createEvent(server, await createGroup(server));
      const foreignSession = await createSession(server, otherEvent);
      for (const sessionId of [987654, foreignSession]) {
        const res = await scan(server, eventId, { barcode: guest.barcode, session_id: sessionId });
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { detail: MSG.sessionNotFound });
      }
      assert.equal((await server.db('checkins').where({ guest_id: guest.id })).length, 0);
    });

    it('answers the event 404 for an event id that is not a number', async () => {
      for (const id of ['abc', '1.0', '99999999999999999999']) {
        const res = await server.post(`/events/${id}/checkins`, { barcode: 'ANY' });
        assert.equal(res.status, 404, id);
        assert.deepEqual(res.body, { detail: MSG.eventNotFound });
      }
    });

    it('answers the event 404 for an event out of scope, and scans nothing', async () => {
      const { a, b } = await twoOrganisers(server);
      const typeA = await seedRegistrationType(server, a.eventId);
      await seedGuests(server, a.eventId, typeA, [{ barcode: 'SCOPE-A-1' }]);
      const res = await scan(server, a.eventId, { barcode: 'SCOPE-A-1' }, b.key);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.eventNotFound });
      assert.equal(await countCheckins(server, a.eventId), 0);
      assert.equal((await scan(server, a.eventId, { barcode: 'SCOPE-A-1' }, a.key)).status, 201);
    });

    describe('validation', () => {
      it('answers 400 when none or more than one of barcode, nfc_tag, guest_id is sent', async () => {
        for (const body of [{}, { barcode: 'A', guest_id: 1 }, { barcode: 'A', nfc_tag: 'B' }, { station: 'Door' }]) {
          const res = await scan(server, eventId, body);
          assert.equal(res.status, 400, JSON.stringify(body));
          assert.deepEqual(res.body, { non_field_errors: [MSG.oneScanTarget] });
        }
      });

      it('answers 400 field errors for bad values, before anything is recorded', async () => {
        const before = await countCheckins(server, eventId);
        const cases: [Record<string, unknown>, Record<string, string[]>][] = [
          [{ barcode: 'A', direction: 'sideways' }, { direction: [MSG.invalidDirection] }],
          [{ barcode: 'A', uid: 'x'.repeat(65) }, { uid: ['Ensure this field has no more than 64 characters.'] }],
          [{ barcode: 'A', uid: '' }, { uid: [MSG.blank] }],
          [{ barcode: 'A', scanned_at: '01/12/2026 18:00' }, { scanned_at: [MSG.datetimeFormat] }],
          [{ barcode: 'A', scanned_at: '2026-02-30T18:00' }, { scanned_at: [MSG.datetimeFormat] }],
          [{ barcode: 'A', scanned_at: '9999-12-31T23:59' }, { scanned_at: [MSG.scanTimeOutOfRange] }],
          [{ barcode: 'A', scanned_at: '1999-12-31T23:59' }, { scanned_at: [MSG.scanTimeOutOfRange] }],
          [{ barcode: 'A', uid: 'two words' }, { uid: [MSG.scanUidInvalid] }],
          [{ barcode: 'A', uid: 'ctl\u0001' }, { uid: [MSG.scanUidInvalid] }],
          [{ barcode: '   ' }, { barcode: [MSG.blank] }],
          [{ barcode: true }, { barcode: [MSG.invalidString] }],
          [{ nfc_tag: ['04:A2'] }, { nfc_tag: [MSG.invalidString] }],
          [{ guest_id: 'seven' }, { guest_id: [MSG.invalidInteger] }],
          [{ barcode: 'A', session_id: 'main' }, { session_id: [MSG.invalidInteger] }],
          [{ barcode: 'A', station: 's'.repeat(129) }, { station: ['Ensure this field has no more than 128 characters.'] }],
        ];
        for (const [body, errors] of cases) {
          const res = await scan(server, eventId, body);
          assert.equal(res.status, 400, JSON.stringify(body));
          assert.deepEqual(res.body, errors, JSON.stringify(body));
        }
        const junk = await server.request('POST', `/events/${eventId}/checkins`, { rawBody: '[1,2]', headers: { 'content-type': 'application/json' } });
        assert.equal(junk.status, 400);
        assert.equal(await countCheckins(server, eventId), before);
      });

      it('answers JSON and form posts, with or without a trailing slash; 401, malformed, not an object, too large', async () => {
        const json = await newGuest();
        const slash = await server.post(`/events/${eventId}/checkins/`, { barcode: json.barcode });
        assert.equal(slash.status, 201);
        assert.equal(slash.headers.get('content-type'), 'application/json; charset=utf-8');

        const form = await newGuest();
        const posted = await server.request('POST', `/events/${eventId}/checkins`, {
          rawBody: `barcode=${form.barcode}&station=Form`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        assert.equal(posted.status, 201);
        assert.equal(posted.body.station, 'Form');

        const noToken = await server.post(`/events/${eventId}/checkins`, { barcode: 'X' }, { token: null });
        assert.equal(noToken.status, 401);
        assert.deepEqual(noToken.body, { detail: MSG.sessionExpired });
        const headers = { 'content-type': 'application/json' };
        const broken = await server.request('POST', `/events/${eventId}/checkins`, { rawBody: '{"barcode": ', headers });
        assert.equal(broken.status, 400);
        assert.deepEqual(broken.body, { detail: MSG.malformedJson });
        for (const rawBody of ['[1,2]', '"text"', 'null']) {
          const junk = await server.request('POST', `/events/${eventId}/checkins`, { rawBody, headers });
          assert.equal(junk.status, 400, rawBody);
          assert.deepEqual(junk.body, { detail: MSG.bodyNotObject });
        }
        const empty = await server.request('POST', `/events/${eventId}/checkins`, { rawBody: '', headers });
        assert.deepEqual(empty.body, { non_field_errors: [MSG.oneScanTarget] });
        const tooBig = await server.request('POST', `/events/${eventId}/checkins`, { rawBody: JSON.stringify({ barcode: 'x'.repeat(1_100_000) }), headers });
        assert.equal(tooBig.status, 413);
        assert.equal((await server.post('/events/abc/checkins', { barcode: 'X' })).status, 404);
      });

      it('answers 400 to a body that is not UTF-8, raw or escaped, and records nothing', async () => {
        const guest = await newGuest();
        const before = await countCheckins(server, eventId);
        const headers = { 'content-type': 'application/json' };
        const rawBody = Buffer.concat([Buffer.from(`{"barcode": "${guest.barcode}", "station": "Door `), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
        const raw = await server.request('POST', `/events/${eventId}/checkins`, { rawBody, headers });
        assert.equal(raw.status, 400);
        assert.deepEqual(raw.body, { detail: MSG.bodyNotUtf8 });
        const escaped = await server.request('POST', `/events/${eventId}/checkins`, { rawBody: `{"barcode": "${guest.barcode}", "station": "Door \\uFFFD"}`, headers });
        assert.deepEqual(escaped.body, { detail: MSG.bodyNotUtf8 });
        assert.equal(await countCheckins(server, eventId), before);
        assert.equal((await scan(server, eventId, { barcode: guest.barcode, station: 'Door \\uFFFD as text' })).status, 201);
      });

      it('answers 404 for an event id that is no id', async () => {
        const res = await scan(server, 0, { barcode: 'A' });
        assert.equal(res.status, 404);
      });
    });

    describe('sessions', () => {
      it('scans into an open session without touching the event door state; a second scan is 409', async () => {
        const guest = await newGuest();
        const sessionId = await createSession(server, eventId, { name: 'Open talk' });
        const res = await scan(server, eventId, { barcode: guest.barcode, session_id: sessionId, scanned_at: '2026-12-01T18:30' });
        assert.equal(res.status, 201);
        assert.equal(res.body.session_id, sessionId);
        assert.equal(res.body.status, 'checked_in');
        assert.equal((await guestState(server, guest.id)).checked_in_at, null, 'a session scan is attendance only');

        const again = await scan(server, eventId, { barcode: guest.barcode, session_id: sessionId });
        assert.equal(again.status, 409);
        assert.deepEqual(again.body, { details: MSG.guestAlreadyCheckedIn, status: 'already_checked_in', checked_in_at: '2026-12-01T18:30:00', checked_in_station: null, guest: guest.summary });

        // The event door is separate: the guest is still let in there.
        assert.equal((await scan(server, eventId, { barcode: guest.barcode })).status, 201);
        const out = await scan(server, eventId, { barcode: guest.barcode, session_id: sessionId, direction: 'out' });
        assert.equal(out.status, 201);
        assert.equal(out.body.status, 'checked_out');
        assert.ok((await guestState(server, guest.id)).checked_in_at, 'leaving a session is not leaving the event');
        const notIn = await scan(server, eventId, { barcode: guest.barcode, session_id: sessionId, direction: 'out' });
        assert.equal(notIn.status, 409);
        assert.equal(notIn.body.status, 'not_checked_in');
      });

      it('answers 400 not_registered with the guest at an access-controlled session; registered guests get in', async () => {
        const guest = await newGuest();
        const sessionId = await createSession(server, eventId, { name: 'Closed workshop', access_control: true });
        const res = await scan(server, eventId, { barcode: guest.barcode, session_id: sessionId });
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { details: MSG.guestNotRegisteredForSession, status: 'not_registered', guest: guest.summary });

        const reg = await server.put(`/events/${eventId}/guests/${guest.id}/registration/session/${sessionId}`, { attend: true });
        assert.equal(reg.status, 200, JSON.stringify(reg.body));
        assert.equal((await scan(server, eventId, { barcode: guest.barcode, session_id: sessionId })).status, 201);
      });

      it('registers on the spot with auto_registration until capacity plus overbook, then 400 session_full with the guest', async () => {
        const sessionId = await createSession(server, eventId, { name: 'Tiny room', access_control: true, auto_registration: true, capacity: 1, overbook_capacity: 1 });
        const guests = [await newGuest(), await newGuest(), await newGuest()];
        for (const g of guests.slice(0, 2)) {
          const res = await scan(server, eventId, { barcode: g.barcode, session_id: sessionId });
          assert.equal(res.status, 201, JSON.stringify(res.body));
        }
        const registered = await server.db('session_registrations').where({ session_id: sessionId }).pluck('guest_id');
        assert.deepEqual(registered.sort(), [guests[0].id, guests[1].id].sort());
        const full = await scan(server, eventId, { barcode: guests[2].barcode, session_id: sessionId });
        assert.equal(full.status, 400);
        assert.deepEqual(full.body, { details: MSG.sessionFull, status: 'session_full', guest: guests[2].summary });
      });
    });

    describe('session capacity without access control', () => {
      it('admits capacity plus overbook guests, then 400 session_full with the guest; one admitted keeps their seat after leaving', async () => {
        const sessionId = await createSession(server, eventId, { name: 'Small room', capacity: 2, overbook_capacity: 1 });
        const guests = [];
        for (let i = 0; i < 5; i++) guests.push(await newGuest());
        for (const g of guests.slice(0, 3)) {
          const res = await scan(server, eventId, { barcode: g.barcode, session_id: sessionId });
          assert.equal(res.status, 201, JSON.stringify(res.body));
        }
        for (const g of guests.slice(3)) {
          const full = await scan(server, eventId, { barcode: g.barcode, session_id: sessionId, station: 'Room door' });
          assert.equal(full.status, 400);
          assert.deepEqual(full.body, { details: MSG.sessionFull, status: 'session_full', guest: g.summary });
        }
        assert.deepEqual(await server.db('session_registrations').where({ session_id: sessionId }).pluck('guest_id'), [], 'an open session registers nobody');
        // A guest let out and back in keeps the seat; the session is still full for a new one.
        assert.equal((await scan(server, eventId, { barcode: guests[0].barcode, session_id: sessionId, direction: 'out' })).status, 201);
        assert.equal((await scan(server, eventId, { barcode: guests[0].barcode, session_id: sessionId })).status, 201);
        assert.equal((await scan(server, eventId, { barcode: guests[3].barcode, session_id: sessionId })).body.status, 'session_full');
        // The event's own door does not count against the session.
        assert.equal((await scan(server, eventId, { barcode: guests[3].barcode })).status, 201);
        const stats = await server.get(`/events/${eventId}/stats`);
        const figures = stats.body.sessions.find((s: { id: number }) => s.id === sessionId);
        assert.equal(figures.checked_in, 3);
      });

      it('frees a seat when an admission is undone', async () => {
        const sessionId = await createSession(server, eventId, { name: 'One seat', capacity: 1 });
        const [first, second] = [await newGuest(), await newGuest()];
        const admitted = await scan(server, eventId, { barcode: first.barcode, session_id: sessionId });
        assert.equal(admitted.status, 201);
        assert.equal((await scan(server, eventId, { barcode: second.barcode, session_id: sessionId })).body.status, 'session_full');
        assert.equal((await server.delete(`/events/${eventId}/checkins/${admitted.body.id}`)).status, 204);
        assert.equal((await scan(server, eventId, { barcode: second.barcode, session_id: sessionId })).status, 201);
        assert.equal((await scan(server, eventId, { barcode: first.barcode, session_id: sessionId })).body.status, 'session_full');
      });

      it('answers not_checked_in, not session_full, to a check-out at a full session', async () => {
        const sessionId = await createSession(server, eventId, { name: 'No seats', capacity: 0 });
        const guest = await newGuest();
        assert.equal((await scan(server, eventId, { barcode: guest.barcode, session_id: sessionId })).body.status, 'session_full');
        assert.equal((await scan(server, eventId, { barcode: guest.barcode, session_id: sessionId, direction: 'out' })).body.status, 'not_checked_in');
      });

      it('admits exactly capacity plus overbook of concurrent scans for the last seats, the rest session_full', async () => {
        const sessionId = await createSession(server, eventId, { name: 'Open last seats', capacity: 5, overbook_capacity: 2 });
        const guests = [];
        for (let i = 0; i < 30; i++) guests.push(await newGuest());
        assert.equal((await scan(server, eventId, { barcode: guests[0].barcode, session_id: sessionId })).status, 201);
        const replies = await Promise.all(guests.slice(1).map((g, i) => scan(server, eventId, { barcode: g.barcode, session_id: sessionId, uid: `open-seat-${i}` })));
        assert.equal(replies.filter((r) => r.status === 201).length, 6);
        assert.ok(replies.filter((r) => r.status !== 201).every((r) => r.status === 400 && r.body.status === 'session_full'), JSON.stringify(replies.map((r) => r.body.status)));
        const [{ n }] = await server.db('checkins').where({ session_id: sessionId, direction: 'in' }).whereNull('undone_at').countDistinct({ n: 'guest_id' });
        assert.equal(Number(n), 7);
      });
    });

    describe('uid replay', () => {
      it('answers a replayed uid with the first answer, byte for byte, and records nothing new', async () => {
        const guest = await newGuest();
        const first = await scan(server, eventId, { barcode: guest.barcode, uid: 'replay-ok-1', scanned_at: '2026-12-01T19:00' });
        assert.equal(first.status, 201);
        const count = await countCheckins(server, eventId);
        const modified = (await guestState(server, guest.id)).modified;
        // Even with a different body (a queue that re-sends with another time): same answer.
        for (const body of [{ barcode: guest.barcode, uid: 'replay-ok-1', scanned_at: '2026-12-01T19:00' }, { barcode: guest.barcode, uid: 'replay-ok-1', direction: 'out' }]) {
          const again = await scan(server, eventId, body);
          assert.equal(again.status, 201);
          assert.deepEqual(again.body, first.body);
        }
        assert.equal(await countCheckins(server, eventId), count);
        assert.equal((await guestState(server, guest.id)).modified, modified);
      });

      it('replays a refusal as the same refusal, even after the situation changed', async () => {
        const refused = await scan(server, eventId, { barcode: 'NOT-YET-PRINTED', uid: 'replay-refusal-1' });
        assert.equal(refused.status, 404);
        await seedGuests(server, eventId, typeId, [{ barcode: 'NOT-YET-PRINTED' }]);
        const replay = await scan(server, eventId, { barcode: 'NOT-YET-PRINTED', uid: 'replay-refusal-1' });
        assert.equal(replay.status, 404);
        assert.deepEqual(replay.body, refused.body);
        assert.equal((await scan(server, eventId, { barcode: 'NOT-YET-PRINTED', uid: 'replay-refusal-2' })).status, 201);

        const guest = await newGuest();
        await scan(server, eventId, { barcode: guest.barcode });
        const already = await scan(server, eventId, { barcode: guest.barcode, uid: 'replay-409' });
        assert.equal(already.status, 409);
        await scan(server, eventId, { barcode: guest.barcode, direction: 'out' });
        const replay409 = await scan(server, eventId, { barcode: guest.barcode, uid: 'replay-409' });
        assert.equal(replay409.status, 409);
        assert.deepEqual(replay409.body, already.body);
      });

      it("takes a uid already used in another group's event as new: neither refused nor shown that event's answer", async () => {
        const { a, b } = await twoOrganisers(server);
        const typeA = await seedRegistrationType(server, a.eventId);
        const typeB = await seedRegistrationType(server, b.eventId);
        await seedGuests(server, a.eventId, typeA, [{ barcode: 'UID-A', first_name: 'Secret' }]);
        const [guestB] = await seedGuests(server, b.eventId, typeB, [{ barcode: 'UID-B' }]);
        const first = await scan(server, a.eventId, { barcode: 'UID-A', uid: 'shared-uid' }, a.key);
        assert.equal(first.status, 201);
        const res = await scan(server, b.eventId, { barcode: 'UID-B', uid: 'shared-uid' }, b.key);
        assert.equal(res.status, 201);
        assert.equal(res.body.uid, 'shared-uid');
        assert.equal(res.body.guest_id, guestB);
        assert.notEqual(res.body.id, first.body.id);
        assert.equal(await countCheckins(server, b.eventId), 1);
        // Each event replays its own answer.
        assert.deepEqual((await scan(server, a.eventId, { barcode: 'UID-A', uid: 'shared-uid' }, a.key)).body, first.body);
        assert.deepEqual((await scan(server, b.eventId, { barcode: 'UID-B', uid: 'shared-uid' }, b.key)).body, res.body);
      });

      it('answers a scan whose uid names a check-in imported from another laptop with that check-in', async () => {
        const guest = await newGuest();
        const now = new Date().toISOString();
        const [row] = await server
          .db('checkins')
          .insert({ uid: 'imported-scan-1', created: now, modified: now, event_id: eventId, guest_id: guest.id, direction: 'in', scanned_at: '2026-12-01T18:45:00', station: 'Laptop 2' })
          .returning('id');
        const res = await scan(server, eventId, { barcode: guest.barcode, uid: 'imported-scan-1' });
        assert.equal(res.status, 201);
        assert.equal(res.body.id, row.id);
        assert.equal(res.body.station, 'Laptop 2');
        assert.equal((await server.db('checkins').where({ guest_id: guest.id })).length, 1);
      });
    });

    describe('exactly once under concurrency', () => {
      for (const n of [20, 200]) {
        it(`admits the guest once among ${n} concurrent scans of one barcode with different uids; the rest 409`, async () => {
          const guest = await newGuest();
          const replies = await Promise.all(Array.from({ length: n }, (_, i) => scan(server, eventId, { barcode: guest.barcode, uid: `burst-${n}-${i}` })));
          const statuses = replies.map((r) => r.status);
          assert.equal(statuses.filter((s) => s === 201).length, 1);
          assert.equal(statuses.filter((s) => s === 409).length, n - 1);
          assert.ok(replies.filter((r) => r.status === 409).every((r) => r.body.status === 'already_checked_in'));
          assert.equal((await server.db('checkins').where({ guest_id: guest.id })).length, 1);
          // Every uid's answer is remembered: replaying the whole burst changes nothing.
          const replayed = await Promise.all(Array.from({ length: n }, (_, i) => scan(server, eventId, { barcode: guest.barcode, uid: `burst-${n}-${i}` })));
          assert.deepEqual(replayed.map((r) => r.status), statuses);
          assert.equal((await server.db('checkins').where({ guest_id: guest.id })).length, 1);
        });
      }

      it('answers 50 concurrent copies of one uid identically, with one check-in', async () => {
        const guest = await newGuest();
        const replies = await Promise.all(Array.from({ length: 50 }, () => scan(server, eventId, { barcode: guest.barcode, uid: 'same-uid-burst' })));
        assert.ok(replies.every((r) => r.status === 201 && JSON.stringify(r.body) === JSON.stringify(replies[0].body)));
        assert.equal((await server.db('checkins').where({ guest_id: guest.id })).length, 1);
      });

      it('answers every scan of a mixed burst on its own: two events, a foreign key, session scans, an imported uid', async () => {
        const { a, b } = await twoOrganisers(server);
        const typeA = await seedRegistrationType(server, a.eventId);
        const typeB = await seedRegistrationType(server, b.eventId);
        const codesA = Array.from({ length: 30 }, (_, i) => `MIX-A-${i}`);
        const codesB = Array.from({ length: 30 }, (_, i) => `MIX-B-${i}`);
        const idsA = await seedGuests(server, a.eventId, typeA, codesA.map((barcode) => ({ barcode })));
        await seedGuests(server, b.eventId, typeB, codesB.map((barcode) => ({ barcode })));
        const sessionA = await createSession(server, a.eventId, { name: 'Mixed talk' });
        const now = new Date().toISOString();
        await server.db('checkins').insert({ uid: 'mix-imported', created: now, modified: now, event_id: a.eventId, guest_id: idsA[29], direction: 'in', scanned_at: '2026-12-01T18:00:00' });

        const requests = [
          ...codesA.slice(0, 20).map((barcode, i) => ({ event: a.eventId, key: a.key, body: { barcode, uid: `mix-a-${i}` }, expect: 201 })),
          ...codesB.slice(0, 20).map((barcode, i) => ({ event: b.eventId, key: b.key, body: { barcode, uid: `mix-b-${i}` }, expect: 201 })),
          ...codesA.slice(20, 25).map((barcode) => ({ event: a.eventId, key: b.key, body: { barcode }, expect: 404 })),
          ...codesA.slice(0, 5).map((barcode) => ({ event: a.eventId, key: a.key, body: { barcode, session_id: sessionA }, expect: 201 })),
          { event: a.eventId, key: a.key, body: { barcode: codesA[29], uid: 'mix-imported' }, expect: 201 },
        ];
        const replies = await Promise.all(requests.map((r) => scan(server, r.event, r.body, r.key)));
        replies.forEach((res, i) => assert.equal(res.status, requests[i].expect, `${JSON.stringify(requests[i].body)} -> ${JSON.stringify(res.body)}`));
        assert.deepEqual(replies[40].body, { detail: MSG.eventNotFound });
        assert.equal(await countCheckins(server, a.eventId), 20 + 5 + 1);
        assert.equal(await countCheckins(server, b.eventId), 20);
        const [{ n }] = await server.db('guests').where({ event_id: b.eventId }).whereNotNull('checked_in_at').count({ n: '*' });
        assert.equal(Number(n), 20);
      });

      it('admits exactly capacity plus overbook of concurrent scans for the last seats of an auto-registration session', async () => {
        const sessionId = await createSession(server, eventId, { name: 'Last seats', access_control: true, auto_registration: true, capacity: 7, overbook_capacity: 3 });
        const guests = [];
        for (let i = 0; i < 40; i++) guests.push(await newGuest());
        // Two seats already taken before the rush.
        for (const g of guests.slice(0, 2)) {
          assert.equal((await server.put(`/events/${eventId}/guests/${g.id}/registration/session/${sessionId}`, { attend: true })).status, 200);
        }
        const replies = await Promise.all(guests.slice(2).map((g, i) => scan(server, eventId, { barcode: g.barcode, session_id: sessionId, uid: `seat-${i}` })));
        const admitted = replies.filter((r) => r.status === 201).length;
        assert.equal(admitted, 8);
        assert.ok(replies.filter((r) => r.status !== 201).every((r) => r.status === 400 && r.body.status === 'session_full'));
        const [{ n }] = await server.db('session_registrations').where({ session_id: sessionId }).count({ n: '*' });
        assert.equal(Number(n), 10);
      });
    });
  });

  describe('POST /events/:event_id/checkins for a guest who needs attention', () => {
    it("answers the guest's attention and notes and the registration type's attention, on a first entry and on a refusal", async () => {
      const type = await server.post(`/events/${eventId}/registration_types`, { type: 'ticket', name: 'Over 18', description: '', attention: true });
      const made = await server.post(`/events/${eventId}/guests`, {
        registration_type: type.body.id,
        first_name: 'Ida',
        last_name: 'Rhodes',
        email: 'ida@example.test',
        barcode: 'ATTN-0001',
        attention: true,
        notes: 'Check ID: age',
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const expected = {
        id: made.body.id,
        first_name: 'Ida',
        last_name: 'Rhodes',
        email: 'ida@example.test',
        company: null,
        registration_type: type.body.id,
        registration_type_name: 'Over 18',
        barcode: 'ATTN-0001',
        attention: true,
        notes: 'Check ID: age',
        registration_type_attention: true,
        door_answers: [],
      };
      const first = await scan(server, eventId, { barcode: 'ATTN-0001' });
      assert.equal(first.status, 201);
      assert.deepEqual(first.body.guest, expected);
      const again = await scan(server, eventId, { barcode: 'ATTN-0001' });
      assert.equal(again.status, 409);
      assert.deepEqual(again.body.guest, expected);
    });
  });

  describe('POST /events/:event_id/checkins with questions shown at the door', () => {
    it("carries the guest's answers to show_at_door questions (choices by text) on green, amber and attention answers, and no others", async () => {
      const doorEvent = await createEvent(server, await createGroup(server));
      const type = await seedRegistrationType(server, doorEvent);
      const question = async (body: Record<string, unknown>) => (await server.post(`/events/${doorEvent}/custom_questions`, body)).body;
      const meal = await question({ question: 'Meal?', type: 'radio', choices: [{ answer: 'Fish' }, { answer: 'Veggie' }], show_at_door: true });
      const shirt = await question({ question: 'T-shirt', type: 'checkbox', choices: [{ answer: 'S' }, { answer: 'M' }] });
      const age = await question({ question: 'Age check', type: 'text' });
      const secret = await question({ question: 'Dietary secret', type: 'text' });
      // Set after creation: update turns it on.
      const changed = await server.put(`/events/${doorEvent}/custom_questions/${shirt.id}`, { show_at_door: true });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.equal(changed.body.show_at_door, true);
      assert.equal((await server.put(`/events/${doorEvent}/custom_questions/${age.id}`, { show_at_door: true })).status, 200);
      const read = await server.get(`/events/${doorEvent}/custom_questions/${secret.id}`);
      assert.equal(read.body.show_at_door, false);
      const made = await server.post(`/events/${doorEvent}/guests`, {
        registration_type: type, first_name: 'Ada', last_name: 'Byron', email: '', barcode: 'DOOR-ANS-1', attention: true,
        custom_questions: [
          { question_id: meal.id, answer: meal.choices[1].id },
          { question_id: shirt.id, answer: [shirt.choices[0].id, shirt.choices[1].id] },
          { question_id: age.id, answer: 'Over 18, ID seen' },
          { question_id: secret.id, answer: 'not for the door' },
        ],
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const expected = [
        { question_id: meal.id, question: 'Meal?', answer: 'Veggie' },
        { question_id: shirt.id, question: 'T-shirt', answer: 'S; M' },
        { question_id: age.id, question: 'Age check', answer: 'Over 18, ID seen' },
      ];
      const green = await scan(server, doorEvent, { barcode: 'DOOR-ANS-1' });
      assert.equal(green.status, 201);
      assert.deepEqual(green.body.guest.door_answers, expected);
      assert.equal(green.body.guest.attention, true);
      const amber = await scan(server, doorEvent, { barcode: 'DOOR-ANS-1' });
      assert.equal(amber.status, 409);
      assert.deepEqual(amber.body.guest.door_answers, expected);
      // Turned off again: the next scan no longer carries it.
      await server.put(`/events/${doorEvent}/custom_questions/${meal.id}`, { show_at_door: false });
      const out = await scan(server, doorEvent, { barcode: 'DOOR-ANS-1', direction: 'out' });
      assert.deepEqual(out.body.guest.door_answers, expected.slice(1));
    });

    it('documents door_answers, attention and notes of the scanned guest, and show_at_door, in /openapi.json', async () => {
      const doc = (await server.get('/openapi.json', { token: null })).body;
      const guest = doc.components.schemas.ScanGuest;
      for (const field of ['attention', 'notes', 'registration_type_attention', 'door_answers']) assert.ok(guest.required.includes(field), field);
      assert.deepEqual(Object.keys(guest.properties.door_answers.items.properties), ['question_id', 'question', 'answer']);
      assert.ok(doc.components.schemas.CustomQuestion.properties.show_at_door);
      assert.ok(doc.components.schemas.CustomQuestionUpdate.properties.show_at_door);
    });

    it('answers 400 for a show_at_door that is not a boolean and 404 for a question of another event', async () => {
      const doorEvent = await createEvent(server, await createGroup(server));
      const q = (await server.post(`/events/${doorEvent}/custom_questions`, { question: 'Q', type: 'text' })).body;
      const bad = await server.put(`/events/${doorEvent}/custom_questions/${q.id}`, { show_at_door: 'perhaps' });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { show_at_door: [MSG.invalidBoolean] });
      const other = await createEvent(server, await createGroup(server));
      assert.equal((await server.put(`/events/${other}/custom_questions/${q.id}`, { show_at_door: true })).status, 404);
    });
  });

  describe('GET /events/:event_id/guests after scans', () => {
    it('only_checkins=true lists the guests who are in; records carry checked_in and checked_in_at', async () => {
      const doorEvent = await createEvent(server, await createGroup(server));
      const type = await seedRegistrationType(server, doorEvent);
      const [inside, left, never] = await seedGuests(server, doorEvent, type, [{ barcode: 'OC1' }, { barcode: 'OC2' }, { barcode: 'OC3' }]);
      await scan(server, doorEvent, { barcode: 'OC1', scanned_at: '2026-12-01T18:15' });
      await scan(server, doorEvent, { barcode: 'OC2' });
      await scan(server, doorEvent, { barcode: 'OC2', direction: 'out' });

      const res = await server.get(`/events/${doorEvent}/guests?only_checkins=true`);
      assert.equal(res.status, 200);
      assert.equal(res.body.count, 1);
      assert.equal(res.body.results[0].id, inside);
      assert.equal(res.body.results[0].checked_in, true);
      assert.equal(res.body.results[0].checked_in_at, '2026-12-01T18:15:00');
      for (const id of [left, never]) {
        const detail = await server.get(`/events/${doorEvent}/guests/${id}`);
        assert.equal(detail.body.checked_in, false);
        assert.equal(detail.body.checked_in_at, null);
      }
    });

    it('a scan moves the guest into the next timestamp delta, so other door laptops re-sync them', async () => {
      const doorEvent = await createEvent(server, await createGroup(server));
      const type = await seedRegistrationType(server, doorEvent);
      const ids = await seedGuests(server, doorEvent, type, [{ barcode: 'DL1' }, { barcode: 'DL2' }]);
      const scanned = ids[0];
      // Synced long ago: only what changes from now on belongs in the delta.
      await server.db('guests').whereIn('id', ids).update({ modified: '2026-01-01T00:00:00.000Z' });
      const first = await server.get(`/events/${doorEvent}/guests`);
      assert.equal(first.body.count, 2);
      await scan(server, doorEvent, { barcode: 'DL1' });
      const delta = await server.get(`/events/${doorEvent}/guests?timestamp=${encodeURIComponent(first.body.start_time)}`);
      assert.equal(delta.status, 200);
      assert.deepEqual(delta.body.results.map((g: { id: number }) => g.id), [scanned]);
      assert.equal(delta.body.results[0].checked_in, true);
    });
  });

  describe('GET /events/:event_id/checkins', () => {
    it('lists check-ins in the envelope, filters by guest_id and session_id, and gives a timestamp delta', async () => {
      const listEvent = await createEvent(server, await createGroup(server));
      const type = await seedRegistrationType(server, listEvent);
      const [g1, g2] = await seedGuests(server, listEvent, type, [{ barcode: 'L1' }, { barcode: 'L2' }]);
      const sessionId = await createSession(server, listEvent);
      const s1 = await scan(server, listEvent, { barcode: 'L1', station: 'North', scanned_at: '2026-12-01T18:00:30' });
      await scan(server, listEvent, { barcode: 'L2' });
      const s3 = await scan(server, listEvent, { barcode: 'L2', session_id: sessionId });

      const all = await server.get(`/events/${listEvent}/checkins`);
      assert.equal(all.status, 200);
      assert.equal(all.body.count, 3);
      assert.equal(all.body.next, null);
      assert.equal(all.body.previous, null);
      const { created, modified, ...first } = all.body.results[0];
      assert.deepEqual(first, { id: s1.body.id, uid: s1.body.uid, guest_id: g1, session_id: null, direction: 'in', scanned_at: '2026-12-01T18:00:30', station: 'North', undone_at: null });
      assert.match(created, API_DATETIME);
      assert.match(modified, API_DATETIME);

      const byGuest = await server.get(`/events/${listEvent}/checkins?guest_id=${g2}`);
      assert.deepEqual(byGuest.body.results.map((c: { guest_id: number }) => c.guest_id), [g2, g2]);
      const bySession = await server.get(`/events/${listEvent}/checkins?session_id=${sessionId}`);
      assert.deepEqual(bySession.body.results.map((c: { id: number }) => c.id), [s3.body.id]);

      const paged = await server.get(`/events/${listEvent}/checkins?page_size=2`);
      assert.equal(paged.body.results.length, 2);
      assert.ok(paged.body.next.includes('page=2'));
      // The pages, in id order, hold every scan once.
      const second = await server.get(`/events/${listEvent}/checkins?page_size=2&page=2`);
      assert.deepEqual([...paged.body.results, ...second.body.results].map((c: { id: number }) => c.id), all.body.results.map((c: { id: number }) => c.id));

      const future = await server.get(`/events/${listEvent}/checkins?timestamp=2999-01-01T00:00:00`);
      assert.equal(future.body.count, 0);
      const since = await server.get(`/events/${listEvent}/checkins?timestamp=946684800`);
      assert.equal(since.body.count, 3);
    });

    it('lists undone scans only with include_undone=true or in a timestamp delta', async () => {
      const listEvent = await createEvent(server, await createGroup(server));
      const type = await seedRegistrationType(server, listEvent);
      await seedGuests(server, listEvent, type, [{ barcode: 'U1' }, { barcode: 'U2' }]);
      const kept = await scan(server, listEvent, { barcode: 'U1' });
      const mistaken = await scan(server, listEvent, { barcode: 'U2' });
      assert.equal((await server.delete(`/events/${listEvent}/checkins/${mistaken.body.id}`)).status, 204);

      const ids = (res: { body: { results: { id: number }[] } }) => res.body.results.map((c) => c.id);
      const plain = await server.get(`/events/${listEvent}/checkins`);
      assert.equal(plain.body.count, 1);
      assert.deepEqual(ids(plain), [kept.body.id]);
      const withUndone = await server.get(`/events/${listEvent}/checkins?include_undone=true`);
      assert.equal(withUndone.body.count, 2);
      assert.deepEqual(ids(withUndone), [kept.body.id, mistaken.body.id]);
      assert.equal(withUndone.body.results[0].undone_at, null);
      assert.match(withUndone.body.results[1].undone_at, API_DATETIME);
      const delta = await server.get(`/events/${listEvent}/checkins?timestamp=946684800`);
      assert.deepEqual(ids(delta), [kept.body.id, mistaken.body.id]);
      assert.deepEqual(ids(await server.get(`/events/${listEvent}/checkins?include_undone=false`)), [kept.body.id]);
    });

    it('answers 404 for an event out of scope and 400 for a bad filter', async () => {
      const { a, b } = await twoOrganisers(server);
      assert.equal((await server.get(`/events/${a.eventId}/checkins`, { token: b.key })).status, 404);
      const notBoolean = await server.get(`/events/${a.eventId}/checkins?include_undone=maybe`, { token: a.key });
      assert.equal(notBoolean.status, 400);
      assert.deepEqual(notBoolean.body, { include_undone: [MSG.invalidBoolean] });
      const bad = await server.get(`/events/${a.eventId}/checkins?guest_id=x`, { token: a.key });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { guest_id: [MSG.invalidInteger] });
    });
  });

  describe('DELETE /events/:event_id/checkins/:checkin_id', () => {
    it('answers 204, flags the scan undone, lets the guest in again, and 404 the second time', async () => {
      const guest = await newGuest();
      const res = await scan(server, eventId, { barcode: guest.barcode });
      const del = await server.delete(`/events/${eventId}/checkins/${res.body.id}`);
      assert.equal(del.status, 204);
      assert.equal(del.body, '');
      assert.equal((await guestState(server, guest.id)).checked_in_at, null);
      const listed = await server.get(`/events/${eventId}/checkins?guest_id=${guest.id}&include_undone=true`);
      assert.match(listed.body.results[0].undone_at, API_DATETIME);
      assert.equal((await scan(server, eventId, { barcode: guest.barcode })).status, 201);

      const again = await server.delete(`/events/${eventId}/checkins/${res.body.id}`);
      assert.equal(again.status, 404);
      assert.deepEqual(again.body, { detail: MSG.checkinNotFound });
    });

    it('undoing a check-out puts the guest back in, from the scans that remain', async () => {
      const guest = await newGuest();
      await scan(server, eventId, { barcode: guest.barcode, scanned_at: '2026-12-01T20:00' });
      const out = await scan(server, eventId, { barcode: guest.barcode, direction: 'out' });
      assert.equal((await guestState(server, guest.id)).checked_in_at, null);
      assert.equal((await server.delete(`/events/${eventId}/checkins/${out.body.id}`)).status, 204);
      assert.equal((await guestState(server, guest.id)).checked_in_at, '2026-12-01T20:00:00');
      const res = await scan(server, eventId, { barcode: guest.barcode });
      assert.equal(res.status, 409);
      assert.equal(res.body.checked_in_at, '2026-12-01T20:00:00');
    });

    it('undoing a session scan leaves the event door state alone', async () => {
      const guest = await newGuest();
      const sessionId = await createSession(server, eventId, { name: 'Undo talk' });
      await scan(server, eventId, { barcode: guest.barcode, scanned_at: '2026-12-01T21:00' });
      const inSession = await scan(server, eventId, { barcode: guest.barcode, session_id: sessionId });
      assert.equal((await server.delete(`/events/${eventId}/checkins/${inSession.body.id}`)).status, 204);
      assert.equal((await guestState(server, guest.id)).checked_in_at, '2026-12-01T21:00:00');
      assert.equal((await scan(server, eventId, { barcode: guest.barcode, session_id: sessionId })).status, 201);
    });

    it("answers 404 for an unknown id, another event's check-in, or an event out of scope", async () => {
      const { a, b } = await twoOrganisers(server);
      const typeA = await seedRegistrationType(server, a.eventId);
      await seedGuests(server, a.eventId, typeA, [{ barcode: 'DEL-A' }]);
      const res = await scan(server, a.eventId, { barcode: 'DEL-A' }, a.key);
      assert.equal((await server.delete(`/events/${a.eventId}/checkins/999999`, { token: a.key })).status, 404);
      assert.equal((await server.delete(`/events/${b.eventId}/checkins/${res.body.id}`, { token: b.key })).status, 404);
      const outOfScope = await server.delete(`/events/${a.eventId}/checkins/${res.body.id}`, { token: b.key });
      assert.equal(outOfScope.status, 404);
      assert.deepEqual(outOfScope.body, { detail: MSG.eventNotFound });
      assert.equal((await server.delete(`/events/${a.eventId}/checkins/${res.body.id}`, { token: a.key })).status, 204);
    });
  });
});
