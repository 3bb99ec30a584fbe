import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createEvent, createGroup, stampEarlier, twoOrganisers } from '../helpers/fixtures';
import { TestServer } from '../helpers/server';

describe('custom questions', () => {
  let server: TestServer;
  let eventId: number;
  const path = () => `/events/${eventId}/custom_questions`;
  before(async () => {
    server = await TestServer.start();
    eventId = await createEvent(server, await createGroup(server, { name: 'Questions Co' }));
  });
  after(() => server.stop());

  describe('POST /events/:event_id/custom_questions', () => {
    it('answers 201 {id, question, type, choices: [{answer, id}]} in the given order', async () => {
      const res = await server.post(path(), { question: 'Meal?', type: 'radio', choices: [{ answer: 'Fish' }, { answer: 'Veggie' }] });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body), ['id', 'question', 'type', 'choices']);
      assert.equal(res.body.question, 'Meal?');
      assert.equal(res.body.type, 'radio');
      assert.deepEqual(res.body.choices.map((c: { answer: string }) => c.answer), ['Fish', 'Veggie']);
      for (const c of res.body.choices) {
        assert.deepEqual(Object.keys(c), ['answer', 'id']);
        assert.equal(typeof c.id, 'number');
      }
    });

    it('accepts each of the four types; a text question has no choices', async () => {
      for (const type of ['drop_down', 'checkbox', 'radio']) {
        const res = await server.post(path(), { question: `Q ${type}`, type, choices: [{ answer: 'One' }] });
        assert.equal(res.status, 201, type);
        assert.equal(res.body.choices.length, 1);
      }
      const text = await server.post(path(), { question: 'Anything else?', type: 'text', choices: [{ answer: 'ignored' }] });
      assert.equal(text.status, 201);
      assert.deepEqual(text.body.choices, []);
      const plain = await server.post(path(), { question: 'Notes', type: 'text' });
      assert.deepEqual(plain.body.choices, []);
    });

    it('answers 400 with the valid types for an unknown type', async () => {
      const res = await server.post(path(), { question: 'Q', type: 'slider' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { type: [MSG.invalidCustomQuestionType] });
      assert.equal(MSG.invalidCustomQuestionType, 'Invalid type; valid: checkbox, text, drop_down, radio');
    });

    it('answers 400 {details: [...]} when a choice type comes without choices', async () => {
      for (const type of ['radio', 'drop_down', 'checkbox']) {
        for (const choices of [undefined, [], null]) {
          const res = await server.post(path(), { question: 'Q', type, choices });
          assert.equal(res.status, 400, `${type} ${JSON.stringify(choices)}`);
          assert.deepEqual(res.body, { details: [MSG.choicesRequired] });
        }
      }
    });

    it('answers 400 "This field is required." for a missing question and type', async () => {
      const res = await server.post(path(), {});
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { question: [MSG.required], type: [MSG.required] });
    });

    it('answers 400 for blank choices, a non-list of choices and a bad objstatus', async () => {
      assert.deepEqual((await server.post(path(), { question: 'Q', type: 'radio', choices: [{ answer: ' ' }] })).body, { choices: [MSG.blank] });
      assert.deepEqual((await server.post(path(), { question: 'Q', type: 'radio', choices: 'Fish' })).body, { choices: [MSG.invalidList] });
      assert.deepEqual((await server.post(path(), { question: 'Q', type: 'radio', choices: ['Fish'] })).body, { choices: [MSG.choiceAnswerRequired] });
      assert.deepEqual((await server.post(path(), { question: 'Q', type: 'text', objstatus: 4 })).body, { objstatus: [MSG.invalidQuestionObjstatus] });
    });

    it('answers 404 for an unknown event', async () => {
      const res = await server.post('/events/999999/custom_questions', { question: 'Q', type: 'text' });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.eventNotFound });
    });
  });

  describe('GET /events/:event_id/custom_questions/:custom_question_id', () => {
    it('returns id, question, type, choices, objstatus ("1" by default, as sent otherwise) and show_at_door (false unless sent)', async () => {
      const created = await server.post(path(), { question: 'Size?', type: 'drop_down', choices: [{ answer: 'S' }, { answer: 'M' }] });
      const res = await server.get(`${path()}/${created.body.id}`);
      assert.equal(res.status, 200);
      const { created: c, modified, ...rest } = res.body;
      assert.deepEqual(rest, { id: created.body.id, question: 'Size?', type: 'drop_down', choices: created.body.choices, objstatus: '1', show_at_door: false });
      const shown = await server.post(path(), { question: 'Meal?', type: 'text', show_at_door: true });
      assert.equal((await server.get(`${path()}/${shown.body.id}`)).body.show_at_door, true);
      assert.match(c, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      const inactive = await server.post(path(), { question: 'Old', type: 'text', objstatus: 2 });
      assert.equal((await server.get(`${path()}/${inactive.body.id}`)).body.objstatus, '2');
      const deleted = await server.post(path(), { question: 'Gone', type: 'text', objstatus: '3' });
      assert.equal((await server.get(`${path()}/${deleted.body.id}`)).body.objstatus, '3');
    });

    it('answers 404 {details: "Custom question not found."} for an unknown id, a non-number, or a question of another event', async () => {
      const other = await createEvent(server, await createGroup(server, { name: 'Elsewhere' }));
      const foreign = await server.post(`/events/${other}/custom_questions`, { question: 'Q', type: 'text' });
      for (const id of ['999999', 'abc', String(foreign.body.id)]) {
        const res = await server.get(`${path()}/${id}`);
        assert.equal(res.status, 404, id);
        assert.deepEqual(res.body, { details: MSG.customQuestionNotFound });
      }
    });
  });

  describe('GET /events/:event_id/custom_questions', () => {
    it('lists the questions with their choices in the envelope, paged and with a timestamp delta', async () => {
      const event = await createEvent(server, await createGroup(server, { name: 'List Q' }));
      const q1 = await server.post(`/events/${event}/custom_questions`, { question: 'One', type: 'text' });
      const q2 = await server.post(`/events/${event}/custom_questions`, { question: 'Two', type: 'checkbox', choices: [{ answer: 'a' }, { answer: 'b' }] });
      const res = await server.get(`/events/${event}/custom_questions`);
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body), ['count', 'next', 'previous', 'results']);
      assert.equal(res.body.count, 2);
      assert.deepEqual(res.body.results.map((q: { id: number }) => q.id), [q1.body.id, q2.body.id]);
      assert.deepEqual(res.body.results[1].choices, q2.body.choices);
      assert.equal(res.body.results[1].objstatus, '1');
      const page = await server.get(`/events/${event}/custom_questions/?page_size=1&page=2`);
      assert.deepEqual(page.body.results.map((q: { id: number }) => q.id), [q2.body.id]);
      // `timestamp` counts whole seconds: what came before is stamped an hour older than what follows.
      await stampEarlier(server, 'custom_questions', { event_id: event });
      const since = Math.floor(Date.now() / 1000);
      const q3 = await server.post(`/events/${event}/custom_questions`, { question: 'Three', type: 'text' });
      const delta = await server.get(`/events/${event}/custom_questions?timestamp=${since}`);
      assert.deepEqual(delta.body.results.map((q: { id: number }) => q.id), [q3.body.id]);
    });
  });

  describe('scope', () => {
    it("answers 404 to another organiser's key on every custom question route", async () => {
      const { a, b } = await twoOrganisers(server);
      const created = await server.post(`/events/${a.eventId}/custom_questions`, { question: 'Q', type: 'text' }, { token: a.key });
      assert.equal(created.status, 201);
      const asB = { token: b.key };
      assert.equal((await server.post(`/events/${a.eventId}/custom_questions`, { question: 'Q', type: 'text' }, asB)).status, 404);
      assert.equal((await server.get(`/events/${a.eventId}/custom_questions`, asB)).status, 404);
      assert.equal((await server.get(`/events/${a.eventId}/custom_questions/${created.body.id}`, asB)).status, 404);
      assert.equal((await server.get(`/events/${b.eventId}/custom_questions/${created.body.id}`, asB)).status, 404);
    });
  });
});
