import { listEvents, toEvent } from '../../db/repositories/events';
import { envelope, envelopeSchema, pageRequest } from '../http/pagination';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { scopedEvent } from '../http/scope';
import { DetailResponse, DetailsResponse, IdResponse } from '../schemas/fields';
import { DuplicateEventBody, DuplicateEventResult, Event, EventCreate, EventListQuery, EventParams, EventUpdate } from '../schemas/events';
import { MSG } from '../../core/messages';
import { changeEvent, createEvent } from '../services/event-writes';
import { duplicateAndNotify } from '../services/event-duplicates';

/**
 * Events: create, change, list, read and duplicate.
 *
 * Over 80 lines only as a table: one `route()` declaration per endpoint (schemas, answers, a
 * handler of a few lines), kept together so the resource's routes read in one place.
 */
// The spec's own shape for a group_id the caller cannot use, beside field errors.
const groupNotFound = { description: `Field errors, or {"details": "${MSG.groupNotFound}"} for a group_id the caller cannot use`, content: { 'application/json': { schema: DetailsResponse } } };

export function eventsRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  route({
    method: 'post',
    path: '/events',
    operationId: 'createEvent',
    summary: 'Create an event',
    tags: ['Events'],
    body: EventCreate,
    responses: { 201: { description: 'Created', content: { 'application/json': { schema: IdResponse } } }, 400: groupNotFound },
    handler: async ({ body, caller }) => {
      // The group in the caller's scope, in the write's transaction (server/services/event-writes.ts).
      const id = await createEvent(deps.db, caller.groups, body);
      return { status: 201, body: { id } };
    },
  });

  route({
    method: 'put',
    path: '/events/{event_id}',
    operationId: 'updateEvent',
    summary: 'Update an event (every field optional)',
    tags: ['Events'],
    params: EventParams,
    body: EventUpdate,
    responses: { 200: { description: 'Updated', content: { 'application/json': { schema: IdResponse } } }, 400: groupNotFound, 404: MSG.eventNotFound },
    handler: async ({ params, body, caller }) => {
      // Scope, the group and the start before the end, in the write's transaction (server/services/event-writes.ts).
      await changeEvent(deps.db, caller.groups, params.event_id, body);
      return { status: 200, body: { id: params.event_id } };
    },
  });

  route({
    method: 'get',
    path: '/events',
    operationId: 'listEvents',
    summary: 'List events (group_id narrows to one group)',
    tags: ['Events'],
    access: 'door',
    query: EventListQuery,
    responses: { 200: { description: 'Events', content: { 'application/json': { schema: envelopeSchema(Event, 'EventList') } } } },
    handler: async ({ query, caller, req }) => {
      const { count, rows } = await listEvents(deps.db, caller.groups, { groupId: query.group_id }, pageRequest(query));
      return { status: 200, body: envelope(req, query, count, rows.map(toEvent)) };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}',
    operationId: 'getEvent',
    summary: 'One event',
    tags: ['Events'],
    access: 'door',
    params: EventParams,
    responses: { 200: { description: 'The event', content: { 'application/json': { schema: Event } } }, 404: MSG.eventNotFound },
    handler: async ({ params, caller }) => ({ status: 200, body: toEvent(await scopedEvent(deps.db, caller, params.event_id)) }),
  });

  route({
    method: 'post',
    path: '/events/{event_id}/duplicate_event',
    operationId: 'duplicateEvent',
    summary: "Copy an event's configuration (never its guests or check-ins) quantity times",
    tags: ['Events'],
    params: EventParams,
    body: DuplicateEventBody,
    bodyAlsoFromQuery: true,
    responses: {
      200: { description: 'The new events', content: { 'application/json': { schema: DuplicateEventResult } } },
      404: { description: MSG.eventNotFound, content: { 'application/json': { schema: DetailResponse } } },
    },
    handler: async ({ params, body, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      // The copies, and the group's e-mail about them (server/services/event-duplicates.ts).
      const newIds = await duplicateAndNotify(deps.db, deps.mailer, caller.groups, event, body.quantity, body.name);
      return { status: 200, body: { new_event_ids: newIds } };
    },
  });

  return router;
}
