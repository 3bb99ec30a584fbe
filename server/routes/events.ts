import { insertEvent, listEvents, toEvent, updateEvent } from '../../db/repositories/events';
import { duplicateEvent } from '../../db/repositories/event-copies';
import { envelope, envelopeSchema, pageRequest } from '../http/pagination';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { ValidationError } from '../http/errors';
import type { Caller } from '../http/auth';
import { scopedEvent, scopedGroup } from '../http/scope';
import { DetailResponse, DetailsResponse, IdResponse } from '../schemas/fields';
import { DuplicateEventBody, DuplicateEventResult, Event, EventCreate, EventListQuery, EventParams, EventUpdate } from '../schemas/events';
import { MSG } from '../../core/messages';

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

  async function requireOwnGroup(caller: Caller, groupId: number) {
    const group = await scopedGroup(deps.db, caller, groupId);
    if (!group) throw new ValidationError({ details: MSG.groupNotFound });
    return group;
  }

  route({
    method: 'post',
    path: '/events',
    operationId: 'createEvent',
    summary: 'Create an event',
    tags: ['Events'],
    body: EventCreate,
    responses: { 201: { description: 'Created', content: { 'application/json': { schema: IdResponse } } }, 400: groupNotFound },
    handler: async ({ body, caller }) => {
      await requireOwnGroup(caller, body.group_id);
      const id = await insertEvent(deps.db, body);
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
      const event = await scopedEvent(deps.db, caller, params.event_id);
      if (body.group_id !== undefined) await requireOwnGroup(caller, body.group_id);
      if ((body.ends ?? event.ends) < (body.starts ?? event.starts)) throw ValidationError.field('ends', MSG.eventEndsBeforeStart);
      await updateEvent(deps.db, event.id, body);
      return { status: 200, body: { id: event.id } };
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
      const newIds = await duplicateEvent(deps.db, event, body.quantity, body.name);
      const group = await scopedGroup(deps.db, caller, event.group_id);
      if (group?.email) {
        await deps.mailer.send({
          recipient: group.email,
          // The outbox holds a subject of 255 characters at most, and an event name may be 255 long.
          subject: `Event "${event.name.length > 200 ? `${event.name.slice(0, 199)}…` : event.name}" duplicated`,
          body: `Your event "${event.name}" (id ${event.id}) was duplicated ${newIds.length} time(s).\nNew event ids: ${newIds.join(', ')}.\n\nDoorlist`,
        });
      }
      return { status: 200, body: { new_event_ids: newIds } };
    },
  });

  return router;
}
