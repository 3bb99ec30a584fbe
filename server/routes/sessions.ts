import {
  deleteSession,
  findSession,
  listSessionRegistrations,
  listSessions,
  toSession,
  toSessionRegistration,
} from '../../db/repositories/sessions';
import type { EventRow } from '../../db/repositories/events';
import type { ZodType } from 'zod';
import { envelope, envelopeSchema, pageRequest } from '../http/pagination';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { NotFoundError } from '../http/errors';
import { scopedEvent } from '../http/scope';
import { DetailResponse, DetailsResponse, IdResponse } from '../schemas/fields';
import { EventParams } from '../schemas/events';
import {
  Session,
  SESSION_REGISTRATION_STATUS,
  SessionCreate,
  SessionListQuery,
  SessionParams,
  SessionRegistration,
  SessionRegistrationBody,
  SessionRegistrationListQuery,
  SessionRegistrationParams,
  SessionRegistrationResult,
  SessionUpdate,
  SessionUpdateDocumented,
} from '../schemas/sessions';
import { MSG } from '../../core/messages';
import { changeSession, createSession, setSessionRegistration } from '../services/session-writes';

const json = (schema: ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });
const sessionNotFound = json(DetailResponse, MSG.sessionNotFound);

/**
 * The sessions of an event and their registrations.
 *
 * Over 80 lines only as a table: one `route()` declaration per endpoint (schemas, answers, a
 * handler of a few lines), kept together so the resource's routes read in one place.
 */
export function sessionsRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  async function requireSession(event: EventRow, sessionId: number) {
    const session = await findSession(deps.db, event.id, sessionId);
    if (!session) throw new NotFoundError(MSG.sessionNotFound);
    return session;
  }

  route({
    method: 'post',
    path: '/events/{event_id}/sessions',
    operationId: 'createSession',
    summary: 'Create a session (answers 200, as the spec says)',
    tags: ['Sessions'],
    params: EventParams,
    body: SessionCreate,
    responses: { 200: json(IdResponse, 'Created'), 404: MSG.eventNotFound },
    handler: async ({ params, body, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      return { status: 200, body: { id: await createSession(deps.db, event, body) } };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/sessions',
    operationId: 'listSessions',
    summary: "List an event's sessions (track_id narrows to one track)",
    tags: ['Sessions'],
    access: 'door',
    params: EventParams,
    query: SessionListQuery,
    responses: { 200: json(envelopeSchema(Session, 'SessionList'), 'Sessions'), 404: MSG.eventNotFound },
    handler: async ({ params, query, caller, req }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const { count, rows } = await listSessions(deps.db, event.id, { trackId: query.track_id }, pageRequest(query));
      return { status: 200, body: envelope(req, query, count, rows.map(toSession)) };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/sessions/{session_id}',
    operationId: 'getSession',
    summary: 'One session, with the number of registered guests',
    tags: ['Sessions'],
    access: 'door',
    params: SessionParams,
    responses: { 200: json(Session, 'The session'), 404: sessionNotFound },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      return { status: 200, body: toSession(await requireSession(event, params.session_id)) };
    },
  });

  route({
    method: 'put',
    path: '/events/{event_id}/sessions/{session_id}',
    operationId: 'updateSession',
    summary: 'Update a session (every field optional; capacity is set on create only)',
    tags: ['Sessions'],
    params: SessionParams,
    body: SessionUpdate,
    documentedBody: SessionUpdateDocumented,
    responses: { 200: json(IdResponse, 'Updated'), 404: sessionNotFound },
    handler: async ({ params, body, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      await changeSession(deps.db, event, params.session_id, body);
      return { status: 200, body: { id: params.session_id } };
    },
  });

  route({
    method: 'delete',
    path: '/events/{event_id}/sessions/{session_id}',
    operationId: 'deleteSession',
    summary: 'Delete a session with its tags, registrations and session check-ins',
    tags: ['Sessions'],
    params: SessionParams,
    responses: { 204: 'Deleted', 404: sessionNotFound },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      if (!(await deleteSession(deps.db, event.id, params.session_id))) throw new NotFoundError(MSG.sessionNotFound);
      return { status: 204 };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/sessions/{session_id}/registrations',
    operationId: 'listSessionRegistrations',
    summary: 'The guests registered for a session (timestamp gives new registrations only)',
    tags: ['Sessions'],
    access: 'door',
    params: SessionParams,
    query: SessionRegistrationListQuery,
    responses: { 200: json(envelopeSchema(SessionRegistration, 'SessionRegistrationList'), 'Registrations'), 404: sessionNotFound },
    handler: async ({ params, query, caller, req }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const session = await requireSession(event, params.session_id);
      const { count, rows } = await listSessionRegistrations(deps.db, session.id, pageRequest(query));
      return { status: 200, body: envelope(req, query, count, rows.map(toSessionRegistration)) };
    },
  });

  route({
    method: 'put',
    path: '/events/{event_id}/guests/{guest_id}/registration/session/{session_id}',
    operationId: 'registerGuestInSession',
    summary: 'Register a guest into a session (attend=false removes the registration)',
    tags: ['Sessions'],
    params: SessionRegistrationParams,
    body: SessionRegistrationBody,
    responses: {
      200: json(SessionRegistrationResult, 'Registered (or unregistered with attend=false); repeating the call changes nothing'),
      400: json(DetailsResponse, `${MSG.sessionFull} (capacity plus overbook_capacity taken), or field errors`),
      404: json(DetailsResponse.or(DetailResponse), `{details: ${MSG.guestNotFound}} / {detail: ${MSG.sessionNotFound}}`),
    },
    handler: async ({ params, body, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      // The guest, the session and the seats (server/services/session-writes.ts).
      await setSessionRegistration(deps.db, event, params.guest_id, params.session_id, body.attend);
      const status = body.attend ? SESSION_REGISTRATION_STATUS.registered : SESSION_REGISTRATION_STATUS.unregistered;
      return { status: 200, body: { guest_id: String(params.guest_id), status, session_id: String(params.session_id) } };
    },
  });

  return router;
}
