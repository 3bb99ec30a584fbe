import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createEvent, createGroup, stampEarlier, twoOrganisers } from '../helpers/fixtures';
import { TestServer } from '../helpers/server';
import { insertGuests } from '../../db/repositories/guest-inserts';
import { ValidationError } from '../../server/http/errors';

const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

describe('guests', () => {
  let server: TestServer;
  let eventId: number;
  let typeId: number;
  let radio: { id: number; choices: { id: number; answer: string }[] };
  let checkbox: { id: number; choices: { id: number; answer: string }[] };
  let text: { id: number };
  const guests = () => `/events/${eventId}/guests`;
  const guest = (fields: Record<string, unknown> = {}) => ({ registration_type: typeId, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test', ...fields });

  async function newEvent(name: string) {
    const event = await createEvent(server, await createGroup(server, { name }));
    const type = await server.post(`/events/${event}/registration_types`, { type: 'ticket', name: 'General', description: '' });
    return { event, type: type.body.id as number };
  }

  before(async () => {
    server = await TestServer.start();
    ({ event: eventId, type: typeId } = await newEvent('Guests Co'));
    radio = (await server.post(`/events/${eventId}/custom_questions`, { question: 'Meal?', type: 'radio', choices: [{ answer: 'Fish' }, { answer: 'Veggie' }] })).body;
    checkbox = (await server.post(`/events/${eventId}/custom_questions`, { question: 'Workshops?', type: 'checkbox', choices: [{ answer: 'AI' }, { answer: 'Web' }, { answer: 'Data' }] })).body;
    text = (await server.post(`/events/${eventId}/custom_questions`, { question: 'Allergies?', type: 'text' })).body;
  });
  after(() => server.stop());

  describe('POST /events/:event_id/guests', () => {
    it('answers 201 {id}; detail returns every field, unset text as null, a generated barcode', async () => {
      const res = await server.post(guests(), guest());
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body), ['id']);
      const detail = await server.get(`${guests()}/${res.body.id}`);
      assert.equal(detail.status, 200);
      const { created, modified, barcode, ...rest } = detail.body;
      assert.deepEqual(rest, {
        id: res.body.id,
        event: eventId,
        registration_type: typeId,
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'ada@example.test',
        prefix: null,
        suffix: null,
        phone: null,
        cell_phone: null,
        company: null,
        job_title: null,
        work_phone: null,
        blog: null,
        website: null,
        nfc_tag: null,
        objstatus: '1',
        selfie: '',
        source: 'api',
        checked_in: false,
        checked_in_at: null,
        attention: false,
        notes: null,
        custom_questions: [],
      });
      assert.match(barcode, /^[A-HJ-NP-Z2-9]{12}$/);
      assert.match(created, DATETIME);
      assert.match(modified, DATETIME);
    });

    it('answers 400 for a body that is not UTF-8 and writes nothing; real UTF-8 is kept as sent', async () => {
      const before = (await server.get(guests())).body.count;
      const json = JSON.stringify(guest({ company: 'XX' }));
      const [head, tail] = json.split('XX');
      const rawBody = Buffer.concat([Buffer.from(head), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(tail)]);
      const res = await server.request('POST', guests(), { rawBody, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { detail: MSG.bodyNotUtf8 });
      assert.equal((await server.get(guests())).body.count, before);
      const ok = await server.post(guests(), guest({ company: 'Café ☕ 日本' }));
      assert.equal((await server.get(`${guests()}/${ok.body.id}`)).body.company, 'Café ☕ 日本');
    });

    it('answers 400 "Null characters are not allowed." for NUL in any text, barcode or text answer, writing nothing', async () => {
      const before = (await server.get(guests())).body.count;
      for (const fields of [{ first_name: 'A\u0000da' }, { company: '\u0000' }, { barcode: 'B\u0000C' }, { nfc_tag: '\u0000x' }]) {
        const res = await server.post(guests(), guest(fields));
        assert.equal(res.status, 400, JSON.stringify(fields));
        assert.deepEqual(res.body, { [Object.keys(fields)[0]]: [MSG.nullCharacter] });
      }
      const answer = await server.post(guests(), guest({ custom_questions: [{ question_id: text.id, answer: 'nuts\u0000' }] }));
      assert.deepEqual(answer.body, { custom_questions: [MSG.nullCharacter] });
      assert.equal((await server.get(guests())).body.count, before);
    });

    it('generates a different barcode for every guest', async () => {
      const codes = new Set<string>();
      for (let i = 0; i < 20; i++) {
        const res = await server.post(guests(), guest({ first_name: `G${i}` }));
        codes.add((await server.get(`${guests()}/${res.body.id}`)).body.barcode);
      }
      assert.equal(codes.size, 20);
    });

    it('stores every optional field as sent', async () => {
      const fields = {
        prefix: 'Dr.', suffix: 'PhD', phone: '+31 20 123', cell_phone: '+31 6 1234', company: 'Analytical Engines', job_title: 'Programmer',
        work_phone: '+44 20 7946', blog: 'https://ada.blog', website: 'https://ada.example', barcode: 'ADA-0001', nfc_tag: '04:A2:B3:C4',
      };
      const res = await server.post(guests(), guest(fields));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const detail = (await server.get(`${guests()}/${res.body.id}`)).body;
      for (const [key, value] of Object.entries(fields)) assert.equal(detail[key], value, key);
    });

    it('answers 400 "This field is required." for each required field', async () => {
      const res = await server.post(guests(), {});
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { registration_type: [MSG.required], first_name: [MSG.required], last_name: [MSG.required], email: [MSG.required] });
    });

    it('answers 400 "This field may not be blank." for a blank first name', async () => {
      const res = await server.post(guests(), guest({ first_name: '  ' }));
      assert.deepEqual(res.body, { first_name: [MSG.blank] });
    });

    it('answers 400 "Event does not have registration_type." for a type of another event or none', async () => {
      const other = await newEvent('Other types');
      for (const registration_type of [other.type, 999999]) {
        const res = await server.post(guests(), guest({ registration_type }));
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { registration_type: [MSG.eventHasNoRegistrationType] });
      }
    });

    it('answers 400 "Barcode cannot be empty" / "NFC tag cannot be empty" for empty or null codes', async () => {
      for (const value of ['', '   ', null]) {
        const res = await server.post(guests(), guest({ barcode: value, nfc_tag: value }));
        assert.equal(res.status, 400, JSON.stringify(value));
        assert.deepEqual(res.body, { barcode: [MSG.barcodeEmpty], nfc_tag: [MSG.nfcTagEmpty] });
      }
    });

    it('answers 400 with conflicted_guest_id for a barcode already in the event', async () => {
      const first = await server.post(guests(), guest({ barcode: 'DUP-1' }));
      const res = await server.post(guests(), guest({ barcode: 'DUP-1' }));
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { barcode: [MSG.barcodeExistsConflict], conflicted_guest_id: [String(first.body.id)] });
      assert.equal(MSG.barcodeExistsConflict, 'Barcode already exists in your guestlist.');
    });

    it('answers 400 "NFC tag already exists in your guestlist." for a taken NFC tag', async () => {
      await server.post(guests(), guest({ nfc_tag: 'TAG-1' }));
      const res = await server.post(guests(), guest({ nfc_tag: 'TAG-1' }));
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { nfc_tag: [MSG.nfcTagExists] });
    });

    it('allows the same barcode and NFC tag in another event', async () => {
      await server.post(guests(), guest({ barcode: 'SHARED', nfc_tag: 'SHARED-TAG' }));
      const other = await newEvent('Other event');
      const res = await server.post(`/events/${other.event}/guests`, guest({ registration_type: other.type, barcode: 'SHARED', nfc_tag: 'SHARED-TAG' }));
      assert.equal(res.status, 201);
    });

    it('creates exactly one guest from concurrent creates with the same barcode; the others get the spec 400', async () => {
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => server.post(guests(), guest({ first_name: `Racer${i}`, barcode: 'RACE-1' }))));
      const created = results.filter((r) => r.status === 201);
      assert.equal(created.length, 1, JSON.stringify(results.map((r) => r.status)));
      for (const r of results.filter((x) => x.status !== 201)) {
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { barcode: [MSG.barcodeExistsConflict], conflicted_guest_id: [String(created[0].body.id)] });
      }
      const list = await server.get(`${guests()}?search=race-1`);
      assert.equal(list.body.count, 1);
    });

    it('answers each of many concurrent creates (one transaction for those that queue) exactly as it would alone', async () => {
      const unique = Array.from({ length: 12 }, (_, i) => guest({ first_name: `Batch${i}`, barcode: `MIX-${i}`, custom_questions: [{ question_id: text.id, answer: `a${i}` }] }));
      const dupes = Array.from({ length: 4 }, (_, i) => guest({ first_name: `Dupe${i}`, barcode: 'MIX-DUP' }));
      const tags = Array.from({ length: 3 }, (_, i) => guest({ first_name: `Tag${i}`, nfc_tag: 'MIX-TAG' }));
      const badType = guest({ registration_type: 999999 });
      const badAnswer = guest({ custom_questions: [{ question_id: radio.id, answer: 999999 }] });
      const otherEvent = guest({ barcode: 'MIX-OTHER' });
      const bodies = [...unique, ...dupes, ...tags, badType, badAnswer];
      const results = await Promise.all([...bodies.map((b) => server.post(guests(), b)), server.post('/events/999999/guests', otherEvent)]);

      for (const [i, r] of results.slice(0, unique.length).entries()) {
        assert.equal(r.status, 201);
        const detail = await server.get(`${guests()}/${r.body.id}`);
        assert.equal(detail.body.first_name, `Batch${i}`);
        assert.equal(detail.body.barcode, `MIX-${i}`);
        assert.deepEqual(detail.body.custom_questions.map((q: { answer: { answer: string }[] }) => q.answer[0].answer), [`a${i}`]);
        // Its search entry is filed under its own id.
        const found = (await server.get(`${guests()}?search=mix-${i}`)).body.results as { id: number; barcode: string }[];
        assert.ok(found.some((g) => g.id === r.body.id));
        assert.ok(found.every((g) => g.barcode.startsWith(`MIX-${i}`)));
      }
      const dupeResults = results.slice(unique.length, unique.length + dupes.length);
      const dupeCreated = dupeResults.filter((r) => r.status === 201);
      assert.equal(dupeCreated.length, 1);
      for (const r of dupeResults.filter((x) => x.status !== 201)) {
        assert.deepEqual([r.status, r.body], [400, { barcode: [MSG.barcodeExistsConflict], conflicted_guest_id: [String(dupeCreated[0].body.id)] }]);
      }
      const tagResults = results.slice(unique.length + dupes.length, bodies.length - 2);
      assert.equal(tagResults.filter((r) => r.status === 201).length, 1);
      for (const r of tagResults.filter((x) => x.status !== 201)) assert.deepEqual([r.status, r.body], [400, { nfc_tag: [MSG.nfcTagExists] }]);
      const [typeResult, answerResult, eventResult] = results.slice(bodies.length - 2);
      assert.deepEqual([typeResult.status, typeResult.body], [400, { registration_type: [MSG.eventHasNoRegistrationType] }]);
      const answerAlone = await server.post(guests(), badAnswer);
      assert.equal(answerAlone.status, 400);
      assert.deepEqual([answerResult.status, answerResult.body], [400, answerAlone.body]);
      assert.deepEqual([eventResult.status, eventResult.body], [404, { detail: MSG.eventNotFound }]);
      assert.equal((await server.get(`${guests()}?search=mix-dup`)).body.count, 1);
    });

    it('answers 404 for an unknown event', async () => {
      const res = await server.post('/events/999999/guests', guest());
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.eventNotFound });
    });
  });

  describe('custom question answers', () => {
    it('stores radio, checkbox and text answers and returns them in the spec shape', async () => {
      const [fish] = radio.choices;
      const [ai, , data] = checkbox.choices;
      const res = await server.post(guests(), guest({
        custom_questions: [
          { question_id: radio.id, answer: fish.id },
          { question_id: checkbox.id, answer: [data.id, ai.id] },
          { question_id: text.id, answer: '42' },
        ],
      }));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const detail = await server.get(`${guests()}/${res.body.id}`);
      assert.deepEqual(detail.body.custom_questions, [
        { question_id: radio.id, question_text: 'Meal?', objstatus: '1', answer: [{ answer: 'Fish', id: String(fish.id) }] },
        { question_id: checkbox.id, question_text: 'Workshops?', objstatus: '1', answer: [{ answer: 'AI', id: String(ai.id) }, { answer: 'Data', id: String(data.id) }] },
        { question_id: text.id, question_text: 'Allergies?', objstatus: '1', answer: [{ answer: '42', id: null }] },
      ]);
      // The list builds the same record another way (JSON from the database, answers included).
      const listed = (await server.get(`${guests()}?page_size=1000`)).body.results.find((g: { id: number }) => g.id === res.body.id);
      assert.deepEqual(listed, detail.body);
    });

    it('lists each guest of a page with its own answers, exactly as its detail, among guests with none', async () => {
      const { event, type } = await newEvent('Answers Co');
      const meal = (await server.post(`/events/${event}/custom_questions`, { question: 'Meal "choice"?', type: 'radio', choices: [{ answer: 'Fish' }, { answer: 'Veggie' }] })).body;
      const topics = (await server.post(`/events/${event}/custom_questions`, { question: 'Topics?', type: 'checkbox', choices: [{ answer: 'AI' }, { answer: 'Web' }, { answer: 'Data' }] })).body;
      const note = (await server.post(`/events/${event}/custom_questions`, { question: 'Note?', type: 'text' })).body;
      const bodies = [
        { custom_questions: [{ question_id: note.id, answer: 'says "hi" \\ ünï\ncode 🎫' }, { question_id: topics.id, answer: [topics.choices[2].id, topics.choices[0].id] }] },
        {},
        { custom_questions: [{ question_id: meal.id, answer: meal.choices[1].id }] },
        { custom_questions: [{ question_id: topics.id, answer: topics.choices.map((c: { id: number }) => c.id).reverse() }, { question_id: meal.id, answer: meal.choices[0].id }] },
        {},
      ];
      const ids: number[] = [];
      for (const [i, body] of bodies.entries()) {
        const res = await server.post(`/events/${event}/guests`, { registration_type: type, first_name: `G${i}`, last_name: 'Answers', email: `g${i}@example.test`, ...body });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        ids.push(res.body.id);
      }
      const listed = (await server.get(`/events/${event}/guests?page_size=100`)).body.results;
      assert.deepEqual(listed.map((g: { id: number }) => g.id), ids);
      for (const [i, id] of ids.entries()) {
        const detail = (await server.get(`/events/${event}/guests/${id}`)).body;
        assert.deepEqual(listed[i], detail);
        assert.equal(detail.custom_questions.length, bodies[i].custom_questions?.length ?? 0);
      }
      assert.deepEqual(listed[0].custom_questions[0], { question_id: topics.id, question_text: 'Topics?', objstatus: '1', answer: [{ answer: 'AI', id: String(topics.choices[0].id) }, { answer: 'Data', id: String(topics.choices[2].id) }] });
      assert.deepEqual(listed[0].custom_questions[1].answer, [{ answer: 'says "hi" \\ ünï\ncode 🎫', id: null }]);
      assert.equal(listed[3].custom_questions[0].question_text, 'Meal "choice"?');
    });

    it('accepts a drop_down answer', async () => {
      const dropDown = (await server.post(`/events/${eventId}/custom_questions`, { question: 'Size?', type: 'drop_down', choices: [{ answer: 'S' }, { answer: 'M' }] })).body;
      const res = await server.post(guests(), guest({ custom_questions: [{ question_id: dropDown.id, answer: dropDown.choices[1].id }] }));
      assert.equal(res.status, 201);
      const detail = await server.get(`${guests()}/${res.body.id}`);
      assert.deepEqual(detail.body.custom_questions[0].answer, [{ answer: 'M', id: String(dropDown.choices[1].id) }]);
    });

    const cases: [string, () => unknown[], () => Record<string, string[]>][] = [
      ['question_id is not an integer', () => [{ question_id: 'abc', answer: 'x' }], () => ({ custom_questions: [MSG.questionIdMustBeInteger] })],
      ['question_id is missing', () => [{ answer: 'x' }], () => ({ custom_questions: [MSG.questionIdMustBeInteger] })],
      ['the question does not exist', () => [{ question_id: 987654, answer: 'x' }], () => ({ custom_question: [MSG.questionDoesNotExist(987654)] })],
      ['the answer is missing', () => [{ question_id: text.id }], () => ({ custom_questions: [MSG.answerNotFound(text.id)] })],
      ['a radio answer is not an integer', () => [{ question_id: radio.id, answer: 'Fish' }], () => ({ custom_questions: [MSG.answerMustBeInteger(radio.id)] })],
      ['a checkbox answer is not a list', () => [{ question_id: checkbox.id, answer: checkbox.choices[0].id }], () => ({ custom_questions: [MSG.answerMustBeList(checkbox.id)] })],
      ['a checkbox list holds a non-integer', () => [{ question_id: checkbox.id, answer: [checkbox.choices[0].id, 'Web'] }], () => ({ custom_questions: [MSG.answerMustBeListOfIds(checkbox.id)] })],
      ['a radio choice is not of the question', () => [{ question_id: radio.id, answer: checkbox.choices[0].id }], () => ({ custom_questions: [MSG.answerChoiceNotFound(checkbox.choices[0].id, radio.id)] })],
      ['a checkbox choice is not of the question', () => [{ question_id: checkbox.id, answer: [555555] }], () => ({ custom_questions: [MSG.answerChoiceNotFound(555555, checkbox.id)] })],
      ['a question is answered twice', () => [{ question_id: text.id, answer: 'a' }, { question_id: text.id, answer: 'b' }], () => ({ custom_questions: [MSG.questionDefinedTwice(text.id)] })],
      ['a text answer is an object', () => [{ question_id: text.id, answer: { x: 1 } }], () => ({ custom_questions: [MSG.answerMustBeString(text.id)] })],
    ];
    for (const [condition, answers, expected] of cases) {
      it(`answers 400 on create and update when ${condition}, writing nothing`, async () => {
        const before = (await server.get(`${guests()}?page_size=1`)).body.count;
        const res = await server.post(guests(), guest({ first_name: 'Nobody', custom_questions: answers() }));
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, expected());
        assert.equal((await server.get(`${guests()}?page_size=1`)).body.count, before);
        const existing = await server.post(guests(), guest());
        const update = await server.put(`${guests()}/${existing.body.id}`, { first_name: 'Changed', custom_questions: answers() });
        assert.equal(update.status, 400);
        assert.deepEqual(update.body, expected());
        assert.equal((await server.get(`${guests()}/${existing.body.id}`)).body.first_name, 'Ada');
      });
    }

    it('answers 400 "Expected a list of items." when custom_questions is not a list', async () => {
      const res = await server.post(guests(), guest({ custom_questions: { question_id: text.id, answer: 'x' } }));
      assert.deepEqual(res.body, { custom_questions: [MSG.invalidList] });
    });

    it("rejects another event's question as not existing", async () => {
      const other = await newEvent('Foreign questions');
      const q = (await server.post(`/events/${other.event}/custom_questions`, { question: 'Theirs', type: 'text' })).body;
      const res = await server.post(guests(), guest({ custom_questions: [{ question_id: q.id, answer: 'x' }] }));
      assert.deepEqual(res.body, { custom_question: [MSG.questionDoesNotExist(q.id)] });
    });

    it('on update replaces the answers of the questions sent and keeps the others', async () => {
      const [fish, veggie] = radio.choices;
      const created = await server.post(guests(), guest({ custom_questions: [{ question_id: radio.id, answer: fish.id }, { question_id: text.id, answer: 'Nuts' }] }));
      const res = await server.put(`${guests()}/${created.body.id}`, { custom_questions: [{ question_id: radio.id, answer: veggie.id }, { question_id: checkbox.id, answer: [checkbox.choices[1].id] }] });
      assert.equal(res.status, 200);
      const detail = (await server.get(`${guests()}/${created.body.id}`)).body;
      assert.deepEqual(
        detail.custom_questions.map((q: { question_id: number; answer: { answer: string }[] }) => [q.question_id, q.answer.map((a) => a.answer)]),
        [[radio.id, ['Veggie']], [checkbox.id, ['Web']], [text.id, ['Nuts']]],
      );
      await server.put(`${guests()}/${created.body.id}`, { custom_questions: [{ question_id: checkbox.id, answer: [] }, { question_id: text.id, answer: '' }] });
      const cleared = (await server.get(`${guests()}/${created.body.id}`)).body;
      assert.deepEqual(cleared.custom_questions.map((q: { question_id: number }) => q.question_id), [radio.id]);
    });
  });

  describe('GET /events/:event_id/guests/:guest_id', () => {
    it('answers 404 {details: "Guest not found."} for an unknown id, a non-number, or a guest of another event', async () => {
      const other = await newEvent('Other guests');
      const foreign = await server.post(`/events/${other.event}/guests`, guest({ registration_type: other.type }));
      for (const id of ['999999', 'abc', String(foreign.body.id)]) {
        const res = await server.get(`${guests()}/${id}`);
        assert.equal(res.status, 404, id);
        assert.deepEqual(res.body, { details: MSG.guestNotFound });
      }
    });

    it('shows checked_in and checked_in_at from the door state', async () => {
      const created = await server.post(guests(), guest());
      await server.db('guests').where({ id: created.body.id }).update({ checked_in_at: '2026-12-01T19:02:03.456Z' });
      const detail = (await server.get(`${guests()}/${created.body.id}`)).body;
      assert.equal(detail.checked_in, true);
      assert.equal(detail.checked_in_at, '2026-12-01T19:02:03');
    });
  });

  describe('PUT /events/:event_id/guests/:guest_id', () => {
    it('updates the fields sent, answers 200 {id}, and leaves the rest', async () => {
      const created = await server.post(guests(), guest({ company: 'Old Co', phone: '123' }));
      const other = await server.post(`/events/${eventId}/registration_types`, { type: 'donation', name: 'Donor', description: '' });
      const res = await server.put(`${guests()}/${created.body.id}`, {
        first_name: 'Augusta', company: 'New Co', phone: null, objstatus: 2, registration_type: other.body.id, barcode: 'NEW-CODE', nfc_tag: 'NEW-TAG',
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { id: created.body.id });
      const detail = (await server.get(`${guests()}/${created.body.id}`)).body;
      assert.equal(detail.first_name, 'Augusta');
      assert.equal(detail.last_name, 'Lovelace');
      assert.equal(detail.company, 'New Co');
      assert.equal(detail.phone, null);
      assert.equal(detail.objstatus, '2');
      assert.equal(detail.registration_type, other.body.id);
      assert.equal(detail.barcode, 'NEW-CODE');
      assert.equal(detail.nfc_tag, 'NEW-TAG');
      assert.equal((await server.put(`${guests()}/${created.body.id}`, { objstatus: 1 })).status, 200);
      assert.equal((await server.get(`${guests()}/${created.body.id}`)).body.objstatus, '1');
    });

    it('answers 400 with the update wordings for a taken barcode or NFC tag, and accepts its own', async () => {
      const a = await server.post(guests(), guest({ barcode: 'UPD-A', nfc_tag: 'UPD-TAG-A' }));
      const b = await server.post(guests(), guest({ barcode: 'UPD-B' }));
      const barcode = await server.put(`${guests()}/${b.body.id}`, { barcode: 'UPD-A' });
      assert.equal(barcode.status, 400);
      assert.deepEqual(barcode.body, { barcode: [MSG.barcodeExists], conflicted_guest_id: [String(a.body.id)] });
      const nfc = await server.put(`${guests()}/${b.body.id}`, { nfc_tag: 'UPD-TAG-A' });
      assert.deepEqual(nfc.body, { nfc_tag: [MSG.nfcTagExistsOnUpdate] });
      assert.equal(MSG.nfcTagExistsOnUpdate, 'nfc_tag already exists in your guestlist.');
      assert.equal((await server.put(`${guests()}/${a.body.id}`, { barcode: 'UPD-A', nfc_tag: 'UPD-TAG-A' })).status, 200);
    });

    it('answers 400 for empty codes, a blank first name, a bad objstatus or registration type', async () => {
      const created = await server.post(guests(), guest());
      const path = `${guests()}/${created.body.id}`;
      assert.deepEqual((await server.put(path, { barcode: '', nfc_tag: null })).body, { barcode: [MSG.barcodeEmpty], nfc_tag: [MSG.nfcTagEmpty] });
      assert.deepEqual((await server.put(path, { first_name: '' })).body, { first_name: [MSG.blank] });
      assert.deepEqual((await server.put(path, { objstatus: 3 })).body, { objstatus: [MSG.invalidGuestObjstatus] });
      assert.deepEqual((await server.put(path, { registration_type: 999999 })).body, { registration_type: [MSG.eventHasNoRegistrationType] });
    });

    it('answers 404 for an unknown guest', async () => {
      const res = await server.put(`${guests()}/999999`, { first_name: 'X' });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { details: MSG.guestNotFound });
    });
  });

  describe('GET /events/:event_id/guests', () => {
    let listEvent: number;
    let listType: number;
    const ids: number[] = [];
    before(async () => {
      ({ event: listEvent, type: listType } = await newEvent('List guests'));
      const people = [
        { first_name: 'Grace', last_name: 'Hopper', email: 'grace.hopper@navy.example', company: 'US Navy', barcode: 'BC-GRACE' },
        { first_name: 'Alan', last_name: 'Turing', email: 'alan@bletchley.example', company: 'Bletchley Park', nfc_tag: 'NFC-ALAN' },
        { first_name: 'Grace', last_name: 'Kelly', email: 'gk@monaco.example', company: null },
      ];
      for (const p of people) ids.push((await server.post(`/events/${listEvent}/guests`, { registration_type: listType, ...p })).body.id);
    });
    const list = (query = '') => server.get(`/events/${listEvent}/guests${query}`);

    it('answers the extended envelope: count, next, previous, results, page, timestamp, start_time, end_time', async () => {
      const res = await list();
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body), ['count', 'next', 'previous', 'results', 'page', 'timestamp', 'start_time', 'end_time']);
      assert.equal(res.body.count, 3);
      assert.equal(res.body.page, 1);
      assert.equal(res.body.timestamp, null);
      assert.match(res.body.start_time, DATETIME);
      assert.match(res.body.end_time, DATETIME);
      assert.ok(res.body.end_time >= res.body.start_time);
      assert.deepEqual(res.body.results.map((g: { id: number }) => g.id), ids);
      assert.equal(res.body.results[0].event, listEvent);
    });

    it('lists each guest exactly as GET /guests/:id answers it (answers, door state, attention, empty fields)', async () => {
      const rich = (
        await server.post(`/events/${listEvent}/guests`, {
          registration_type: listType,
          first_name: 'Ada',
          last_name: 'Lovelace "Countess"',
          email: 'ada@analytical.example',
          prefix: 'Lady',
          attention: true,
          notes: 'Line one\nline two',
        })
      ).body.id;
      await server.db('guests').where({ id: rich }).update({ checked_in_at: '2026-12-01T18:02:07.123Z' });
      try {
        const res = await list();
        const listed = res.body.results.find((g: { id: number }) => g.id === rich);
        assert.deepEqual(listed, (await server.get(`/events/${listEvent}/guests/${rich}`)).body);
        assert.equal(listed.checked_in_at, '2026-12-01T18:02:07');
        assert.equal(listed.attention, true);
        for (const id of ids) assert.deepEqual(res.body.results.find((g: { id: number }) => g.id === id), (await server.get(`/events/${listEvent}/guests/${id}`)).body);
      } finally {
        await server.db('guests').where({ id: rich }).delete();
      }
    });

    it('pages with page and page_size', async () => {
      const res = await list('?page=2&page_size=2');
      assert.equal(res.body.page, 2);
      assert.deepEqual(res.body.results.map((g: { id: number }) => g.id), [ids[2]]);
      assert.equal(res.body.next, null);
      assert.match(res.body.previous, /page_size=2/);
      assert.equal((await list('?page=0')).status, 400);
    });

    it('returns only guests modified at or after `timestamp`, echoing it; start_time works as the next timestamp', async () => {
      // `timestamp` counts whole seconds: what came before is stamped a minute older than what
      // follows (within the hour the next test's zoned timestamp reaches back).
      await stampEarlier(server, 'guests', { event_id: listEvent }, 60);
      const first = await list();
      await server.put(`/events/${listEvent}/guests/${ids[1]}`, { job_title: 'Cryptanalyst' });
      const delta = await list(`?timestamp=${first.body.start_time}`);
      assert.equal(delta.body.timestamp, first.body.start_time);
      assert.deepEqual(delta.body.results.map((g: { id: number }) => g.id), [ids[1]]);
      const unix = Math.floor(Date.parse(`${first.body.start_time}Z`) / 1000);
      assert.deepEqual((await list(`?timestamp=${unix}`)).body.results.map((g: { id: number }) => g.id), [ids[1]]);
      assert.equal((await list('?timestamp=yesterday')).status, 400);
    });

    it('answers 400 for a timestamp naming a day or time that does not exist, and accepts real ones with zone or fractions', async () => {
      for (const bad of ['2026-02-30T10:00', '2026-02-10T24:00', '2026-02-10T10:60', '2026-13-01T00:00', '2026-02-28T10:00:61', '2026-02-28T10:00+15:00', '1e309', '99999999999999999999']) {
        const res = await list(`?timestamp=${encodeURIComponent(bad)}`);
        assert.equal(res.status, 400, bad);
        assert.deepEqual(res.body, { timestamp: [MSG.invalidTimestamp] }, bad);
      }
      assert.deepEqual((await list('?timestamp=1&timestamp=2')).body, { timestamp: [MSG.invalidTimestamp] });
      for (const good of ['2024-02-29T10:00', '2026-02-28T23:59:59.5Z', '2026-02-28 10:00+01:00', '1795399516.25']) {
        assert.equal((await list(`?timestamp=${encodeURIComponent(good)}`)).status, 200, good);
      }
      // +01:00 is an hour before the same wall time in UTC: the zone is honoured, not dropped.
      const first = await list();
      const zoned = `${first.body.start_time}+01:00`;
      assert.equal((await list(`?timestamp=${encodeURIComponent(zoned)}`)).body.count, ids.length);
    });

    it('only_checkins=true lists the guests who are in', async () => {
      await server.db('guests').where({ id: ids[2] }).update({ checked_in_at: new Date().toISOString() });
      const res = await list('?only_checkins=true');
      assert.deepEqual(res.body.results.map((g: { id: number }) => g.id), [ids[2]]);
      assert.equal(res.body.results[0].checked_in, true);
      assert.equal((await list('?only_checkins=false')).body.count, 3);
    });

    it('search= matches name, e-mail (whole and parts), company, barcode and NFC tag by word prefix', async () => {
      const found = async (q: string) => (await list(`?search=${encodeURIComponent(q)}`)).body.results.map((g: { id: number }) => g.id);
      assert.deepEqual(await found('grace'), [ids[0], ids[2]]);
      assert.deepEqual(await found('GRA hop'), [ids[0]]);
      assert.deepEqual(await found('tur'), [ids[1]]);
      assert.deepEqual(await found('alan@bletchley.example'), [ids[1]]);
      assert.deepEqual(await found('navy'), [ids[0]]);
      assert.deepEqual(await found('bletchley park'), [ids[1]]);
      assert.deepEqual(await found('bc-grace'), [ids[0]]);
      assert.deepEqual(await found('nfc-alan'), [ids[1]]);
      assert.deepEqual(await found('monaco'), [ids[2]]);
      assert.deepEqual(await found('nobody'), []);
      assert.deepEqual(await found(''), ids);
    });

    it('search follows updates to the searched fields', async () => {
      await server.put(`/events/${listEvent}/guests/${ids[2]}`, { last_name: 'Grimaldi', company: 'Monaco Palace' });
      const found = async (q: string) => (await list(`?search=${encodeURIComponent(q)}`)).body.results.map((g: { id: number }) => g.id);
      assert.deepEqual(await found('kelly'), []);
      assert.deepEqual(await found('grimaldi palace'), [ids[2]]);
    });

    it('search= ignores case and accents both ways on names, e-mail and company; codes match as they are', async () => {
      const { event, type } = await newEvent('Folding Co');
      const add = async (fields: Record<string, unknown>) => (await server.post(`/events/${event}/guests`, { registration_type: type, email: '', ...fields })).body.id as number;
      const zoe = await add({ first_name: 'Zoë', last_name: 'Müller', company: 'Société Générale' });
      const muller = await add({ first_name: 'Hans', last_name: 'Muller', email: 'hans@bücher.example' });
      const francois = await add({ first_name: 'François', last_name: 'Ångström', barcode: 'CODE-1' });
      const found = async (q: string) => (await server.get(`/events/${event}/guests?search=${encodeURIComponent(q)}`)).body.results.map((g: { id: number }) => g.id);
      assert.deepEqual(await found('muller'), [zoe, muller]);
      assert.deepEqual(await found('MÜLLER'), [zoe, muller]);
      assert.deepEqual(await found('Müll'), [zoe, muller]);
      assert.deepEqual(await found('francois'), [francois]);
      assert.deepEqual(await found('FRANÇOIS angstrom'), [francois]);
      assert.deepEqual(await found('zoe muller'), [zoe]);
      assert.deepEqual(await found('societe generale'), [zoe]);
      assert.deepEqual(await found('bucher'), [muller]);
      assert.deepEqual(await found('code-1'), [francois]);
      assert.deepEqual(await found('zoé hans'), []);
    });

    it('search= spells letters of their own plainly (ø o, æ ae, œ oe, ß ss, ł l, đ d, þ th, ı i), either case, through POST, PUT and CSV', async () => {
      const { event, type } = await newEvent('Own Letters Co');
      const add = async (fields: Record<string, unknown>) => (await server.post(`/events/${event}/guests`, { registration_type: type, email: '', ...fields })).body.id as number;
      const soren = await add({ first_name: 'Søren', last_name: 'Kierkegaard' });
      const lukasz = await add({ first_name: 'Łukasz', last_name: 'García' });
      const odegard = await add({ first_name: 'ANNE', last_name: 'ØDEGÅRD', company: 'Æsir Œuvre' });
      const walesa = await add({ first_name: 'Lech', last_name: 'Wałęsa', email: 'lech@straße.example' });
      const others = await add({ first_name: 'Đorđe', last_name: 'Þórsson', company: 'Işık STRAẞE' });
      const found = async (q: string) => (await server.get(`/events/${event}/guests?search=${encodeURIComponent(q)}`)).body.results.map((g: { id: number }) => g.id);
      assert.deepEqual(await found('soren'), [soren]);
      assert.deepEqual(await found('SØREN'), [soren]);
      assert.deepEqual(await found('lukasz garcia'), [lukasz]);
      assert.deepEqual(await found('odegard'), [odegard]);
      assert.deepEqual(await found('aesir oeuvre'), [odegard]);
      assert.deepEqual(await found('walesa'), [walesa]);
      assert.deepEqual(await found('strasse'), [walesa, others]);
      assert.deepEqual(await found('dorde thorsson isik'), [others]);
      assert.deepEqual(await found('sorensen'), []);
      // A changed name is filed again, spelled plainly.
      await server.put(`/events/${event}/guests/${soren}`, { last_name: 'Møller' });
      assert.deepEqual(await found('soren moller'), [soren]);
      assert.deepEqual(await found('kierkegaard'), []);
      // The bulk path (CSV import) files the same terms as POST.
      const csv = 'First Name,Last Name,Email,Registration Type\nBjørn,Dæhlie,,General\n';
      const imported = await server.request('POST', `/events/${event}/guests.csv`, { rawBody: csv, headers: { 'content-type': 'text/csv' } });
      assert.ok(imported.status < 300, JSON.stringify(imported.body));
      assert.equal((await found('bjorn daehlie')).length, 1);
    });

    it('answers 404 for an unknown event', async () => {
      assert.equal((await server.get('/events/999999/guests')).status, 404);
    });

    it('answers 400 "Not a valid string." for search sent twice', async () => {
      assert.deepEqual((await list('?search=a&search=b')).body, { search: [MSG.invalidString] });
    });

    it('answers 400 for a query string that is not UTF-8', async () => {
      const res = await list('?search=%FF%FE');
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { detail: MSG.queryNotUtf8 });
    });
  });

  describe('GET /events/:event_id/guests: the console\'s ordering and filters', () => {
    let event: number;
    let plain: number;
    let vip: number;
    const id: Record<string, number> = {};
    const names = async (query: string) => {
      const res = await server.get(`/events/${event}/guests${query}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.results.map((g: { first_name: string }) => g.first_name);
    };
    before(async () => {
      ({ event, type: plain } = await newEvent('Sorted guests'));
      vip = (await server.post(`/events/${event}/registration_types`, { type: 'ticket', name: 'VIP', description: '', attention: true })).body.id;
      const people = [
        { first_name: 'Carl', last_name: 'Berg', company: 'Zeta', registration_type: plain },
        { first_name: 'Anna', last_name: 'Berg', company: null, registration_type: vip },
        { first_name: 'Bea', last_name: 'Adams', company: 'Alpha', registration_type: plain, attention: true },
        { first_name: 'Dirk', last_name: 'Cole', company: 'Mid', registration_type: plain },
      ];
      for (const p of people) id[p.first_name] = (await server.post(`/events/${event}/guests`, { email: '', ...p })).body.id;
      // Dirk came in first at North, Carl later at South; Anna's admission at North was undone.
      for (const [who, station, at] of [['Dirk', 'North', '2026-12-01T18:00'], ['Carl', 'South', '2026-12-01T18:10'], ['Anna', 'North', '2026-12-01T18:20']] as const) {
        assert.equal((await server.post(`/events/${event}/checkins`, { guest_id: id[who], station, scanned_at: at })).status, 201);
      }
      const anna = (await server.get(`/events/${event}/checkins?guest_id=${id.Anna}`)).body.results[0];
      assert.equal((await server.delete(`/events/${event}/checkins/${anna.id}`)).status, 204);
    });

    it('without the new parameters lists by id, as before', async () => {
      assert.deepEqual(await names(''), ['Carl', 'Anna', 'Bea', 'Dirk']);
    });

    it('ordering= sorts by last name (then first name), first name, company, registration type or arrival; "-" descends; unset values last', async () => {
      assert.deepEqual(await names('?ordering=last_name'), ['Bea', 'Anna', 'Carl', 'Dirk']);
      assert.deepEqual(await names('?ordering=-last_name'), ['Dirk', 'Carl', 'Anna', 'Bea']);
      assert.deepEqual(await names('?ordering=first_name'), ['Anna', 'Bea', 'Carl', 'Dirk']);
      assert.deepEqual(await names('?ordering=company'), ['Bea', 'Dirk', 'Carl', 'Anna']);
      assert.deepEqual(await names('?ordering=-company'), ['Carl', 'Dirk', 'Bea', 'Anna']);
      assert.deepEqual(await names('?ordering=registration_type'), ['Carl', 'Bea', 'Dirk', 'Anna']);
      assert.deepEqual(await names('?ordering=checked_in_at'), ['Dirk', 'Carl', 'Anna', 'Bea']);
      assert.deepEqual(await names('?ordering=-checked_in_at'), ['Carl', 'Dirk', 'Bea', 'Anna']);
      assert.deepEqual(await names('?ordering=-id'), ['Dirk', 'Bea', 'Anna', 'Carl']);
    });

    it('pages a sorted list without overlap, and counts what the filters leave', async () => {
      const first = await server.get(`/events/${event}/guests?ordering=last_name&page_size=3`);
      const second = await server.get(`/events/${event}/guests?ordering=last_name&page_size=3&page=2`);
      assert.equal(first.body.count, 4);
      assert.deepEqual([...first.body.results, ...second.body.results].map((g: { first_name: string }) => g.first_name), ['Bea', 'Anna', 'Carl', 'Dirk']);
      const filtered = await server.get(`/events/${event}/guests?checked_in=false`);
      assert.equal(filtered.body.count, 2);
    });

    it('checked_in=, registration_type=, attention= (own or the type\'s) and station= (a standing event-door admission) filter, and combine with search and ordering', async () => {
      assert.deepEqual(await names('?checked_in=true&ordering=first_name'), ['Carl', 'Dirk']);
      assert.deepEqual(await names('?checked_in=false'), ['Anna', 'Bea']);
      assert.deepEqual(await names(`?registration_type=${vip}`), ['Anna']);
      assert.deepEqual(await names(`?registration_type=${plain}&ordering=-first_name`), ['Dirk', 'Carl', 'Bea']);
      assert.deepEqual(await names('?attention=true'), ['Anna', 'Bea']);
      assert.deepEqual(await names('?attention=false'), ['Carl', 'Dirk']);
      assert.deepEqual(await names('?station=North'), ['Dirk']);
      assert.deepEqual(await names('?station=South&checked_in=true'), ['Carl']);
      assert.deepEqual(await names('?station=Nowhere'), []);
      assert.deepEqual(await names('?search=berg&ordering=first_name'), ['Anna', 'Carl']);
      assert.deepEqual(await names('?search=berg&attention=false'), ['Carl']);
      // A registration type of another event matches nobody here.
      assert.deepEqual(await names(`?registration_type=${typeId}`), []);
    });

    it('answers the spec\'s 400 field errors for bad values, and nothing else changes', async () => {
      const bad = async (query: string) => {
        const res = await server.get(`/events/${event}/guests${query}`);
        assert.equal(res.status, 400, query);
        return res.body;
      };
      assert.deepEqual(await bad('?ordering=email'), { ordering: [MSG.invalidGuestOrdering] });
      assert.deepEqual(await bad('?ordering=last_name&ordering=id'), { ordering: [MSG.invalidGuestOrdering] });
      assert.deepEqual(await bad('?checked_in=maybe'), { checked_in: [MSG.invalidBoolean] });
      assert.deepEqual(await bad('?attention=2'), { attention: [MSG.invalidBoolean] });
      assert.deepEqual(await bad('?registration_type=abc'), { registration_type: [MSG.invalidInteger] });
      assert.deepEqual(await bad('?station='), { station: [MSG.blank] });
      assert.deepEqual(await bad(`?station=${'x'.repeat(129)}`), { station: [MSG.invalidStation] });
    });

    it('documents the new parameters in /openapi.json', async () => {
      const doc = (await server.get('/openapi.json', { token: null })).body;
      const params = doc.paths['/events/{event_id}/guests'].get.parameters.map((p: { name: string }) => p.name);
      for (const name of ['page', 'page_size', 'timestamp', 'only_checkins', 'search', 'ordering', 'checked_in', 'registration_type', 'attention', 'station']) assert.ok(params.includes(name), name);
    });
  });

  describe('insertGuests (bulk, used by imports and the benchmark seed)', () => {
    it('inserts thousands of guests with answers and search terms in one transaction', async () => {
      const { event, type } = await newEvent('Bulk');
      const q = (await server.post(`/events/${event}/custom_questions`, { question: 'Meal?', type: 'radio', choices: [{ answer: 'Fish' }] })).body;
      const rows = Array.from({ length: 3000 }, (_, i) => ({
        registration_type_id: type,
        first_name: `Bulk${i}`,
        last_name: i % 2 ? 'Odd' : 'Even',
        email: `bulk${i}@example.test`,
        barcode: i === 0 ? 'BULK-FIRST' : undefined,
        answers: [{ question_id: q.id, choice_id: q.choices[0].id, text_answer: null }],
      }));
      const ids = await server.db.transaction((trx) => insertGuests(trx, event, rows));
      assert.equal(ids.length, 3000);
      assert.equal(new Set(ids).size, 3000);
      const list = await server.get(`/events/${event}/guests?page_size=1000&page=3`);
      assert.equal(list.body.count, 3000);
      assert.equal(list.body.results.length, 1000);
      assert.deepEqual(list.body.results[999].custom_questions[0].answer, [{ answer: 'Fish', id: String(q.choices[0].id) }]);
      assert.equal((await server.get(`/events/${event}/guests?search=odd`)).body.count, 1500);
      assert.deepEqual((await server.get(`/events/${event}/guests?search=bulk-first`)).body.results.map((g: { id: number }) => g.id), [ids[0]]);
    });

    it('turns the unique index refusal into the spec 400 with conflicted_guest_id and writes nothing', async () => {
      const { event, type } = await newEvent('Bulk clash');
      const first = await server.post(`/events/${event}/guests`, guest({ registration_type: type, barcode: 'TAKEN' }));
      const rows = [
        { registration_type_id: type, first_name: 'A', last_name: '', email: '' },
        { registration_type_id: type, first_name: 'B', last_name: '', email: '', barcode: 'TAKEN' },
      ];
      await assert.rejects(
        server.db.transaction((trx) => insertGuests(trx, event, rows)),
        (err: unknown) => err instanceof ValidationError && JSON.stringify(err.body) === JSON.stringify({ barcode: [MSG.barcodeExistsConflict], conflicted_guest_id: [String(first.body.id)] }),
      );
      assert.equal((await server.get(`/events/${event}/guests`)).body.count, 1);
    });
  });

  describe('scope', () => {
    it("answers 404 to another organiser's key on every guest route", async () => {
      const { a, b } = await twoOrganisers(server);
      const type = await server.post(`/events/${a.eventId}/registration_types`, { type: 'ticket', name: 'T', description: '' }, { token: a.key });
      const created = await server.post(`/events/${a.eventId}/guests`, guest({ registration_type: type.body.id }), { token: a.key });
      assert.equal(created.status, 201);
      const asB = { token: b.key };
      const path = `/events/${a.eventId}/guests/${created.body.id}`;
      assert.equal((await server.post(`/events/${a.eventId}/guests`, guest({ registration_type: type.body.id }), asB)).status, 404);
      assert.equal((await server.get(`/events/${a.eventId}/guests`, asB)).status, 404);
      assert.equal((await server.get(path, asB)).status, 404);
      assert.equal((await server.put(path, { first_name: 'Hacked' }, asB)).status, 404);
      assert.equal((await server.get(`/events/${b.eventId}/guests/${created.body.id}`, asB)).status, 404);
      assert.equal((await server.get(path, { token: a.key })).body.first_name, 'Ada');
    });
  });
  describe('attention and notes (for the door)', () => {
    it('POST and PUT /events/:event_id/guests keep attention and notes; PUT clears notes with null', async () => {
      const created = await server.post(guests(), guest({ email: 'vip@example.test', attention: true, notes: 'Wheelchair: use the side ramp' }));
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const path = `${guests()}/${created.body.id}`;
      const detail = (await server.get(path)).body;
      assert.deepEqual([detail.attention, detail.notes], [true, 'Wheelchair: use the side ramp']);
      assert.equal((await server.put(path, { attention: false, notes: null })).status, 200);
      const updated = (await server.get(path)).body;
      assert.deepEqual([updated.attention, updated.notes], [false, null]);
    });

    it('POST /events/:event_id/guests answers 400 for attention that is not a boolean and notes over 5000 characters, writing nothing', async () => {
      const before = (await server.get(guests())).body.count;
      const res = await server.post(guests(), guest({ email: 'bad@example.test', attention: 'maybe', notes: 'x'.repeat(5001) }));
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { attention: [MSG.invalidBoolean], notes: ['Ensure this field has no more than 5000 characters.'] });
      assert.equal((await server.get(guests())).body.count, before);
    });

    it('POST /events/:event_id/registration_types keeps attention (false unless sent)', async () => {
      const flagged = await server.post(`/events/${eventId}/registration_types`, { type: 'ticket', name: 'Over 18 only', description: '', attention: true });
      const plain = await server.post(`/events/${eventId}/registration_types`, { type: 'ticket', name: 'Plain', description: '' });
      assert.equal((await server.get(`/events/${eventId}/registration_types/${flagged.body.id}`)).body.attention, true);
      assert.equal((await server.get(`/events/${eventId}/registration_types/${plain.body.id}`)).body.attention, false);
    });
  });
});
