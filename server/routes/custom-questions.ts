import { findCustomQuestion, insertCustomQuestion, listCustomQuestions, updateCustomQuestion } from '../../db/repositories/custom-questions';
import { envelope, envelopeSchema, pageRequest } from '../http/pagination';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { NotFoundError } from '../http/errors';
import { scopedEvent } from '../http/scope';
import { DetailsResponse } from '../schemas/fields';
import { EventParams } from '../schemas/events';
import { CustomQuestion, CustomQuestionCreate, CustomQuestionCreated, CustomQuestionListQuery, CustomQuestionParams, CustomQuestionUpdate } from '../schemas/custom-questions';
import { MSG } from '../../core/messages';

/**
 * An event's custom questions and their choices.
 *
 * Over 80 lines only as a table: one `route()` declaration per endpoint (schemas, answers, a
 * handler of a few lines), kept together so the resource's routes read in one place.
 */
export function customQuestionsRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  route({
    method: 'post',
    path: '/events/{event_id}/custom_questions',
    operationId: 'createCustomQuestion',
    summary: 'Create a custom question (radio, drop_down and checkbox need choices)',
    tags: ['Custom questions'],
    params: EventParams,
    body: CustomQuestionCreate,
    responses: {
      201: { description: 'Created, with the ids of its choices', content: { 'application/json': { schema: CustomQuestionCreated } } },
      400: { description: `Field errors, or {details: ["${MSG.choicesRequired}"]}`, content: { 'application/json': { schema: DetailsResponse } } },
      404: MSG.eventNotFound,
    },
    handler: async ({ params, body, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const question = await insertCustomQuestion(deps.db, event.id, {
        question: body.question,
        type: body.type,
        objstatus: body.objstatus,
        show_at_door: body.show_at_door,
        choices: (body.choices ?? []).map((c) => c.answer),
      });
      return { status: 201, body: { id: question.id, question: question.question, type: question.type, choices: question.choices } };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/custom_questions',
    operationId: 'listCustomQuestions',
    summary: "List an event's custom questions",
    tags: ['Custom questions'],
    access: 'door',
    params: EventParams,
    query: CustomQuestionListQuery,
    responses: {
      200: { description: 'Custom questions', content: { 'application/json': { schema: envelopeSchema(CustomQuestion, 'CustomQuestionList') } } },
      404: MSG.eventNotFound,
    },
    handler: async ({ params, query, caller, req }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const { count, results } = await listCustomQuestions(deps.db, event.id, pageRequest(query));
      return { status: 200, body: envelope(req, query, count, results) };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/custom_questions/{custom_question_id}',
    operationId: 'getCustomQuestion',
    summary: 'One custom question',
    tags: ['Custom questions'],
    access: 'door',
    params: CustomQuestionParams,
    responses: {
      200: { description: 'The custom question', content: { 'application/json': { schema: CustomQuestion } } },
      404: { description: MSG.customQuestionNotFound, content: { 'application/json': { schema: DetailsResponse } } },
    },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const question = await findCustomQuestion(deps.db, event.id, params.custom_question_id);
      if (!question) throw new NotFoundError(MSG.customQuestionNotFound, 'details');
      return { status: 200, body: question };
    },
  });

  route({
    method: 'put',
    path: '/events/{event_id}/custom_questions/{custom_question_id}',
    operationId: 'updateCustomQuestion',
    summary: "Change a custom question's text, status, or whether the door sees its answers",
    tags: ['Custom questions'],
    params: CustomQuestionParams,
    body: CustomQuestionUpdate,
    responses: {
      200: { description: 'The changed question', content: { 'application/json': { schema: CustomQuestion } } },
      400: { description: 'Field errors', content: { 'application/json': { schema: DetailsResponse } } },
      404: { description: MSG.customQuestionNotFound, content: { 'application/json': { schema: DetailsResponse } } },
    },
    handler: async ({ params, body, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const question = await updateCustomQuestion(deps.db, event.id, params.custom_question_id, body);
      if (!question) throw new NotFoundError(MSG.customQuestionNotFound, 'details');
      return { status: 200, body: question };
    },
  });

  return router;
}
