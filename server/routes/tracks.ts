import { deleteTrack, findTrack, insertTrack, listTracks, toTrack } from '../../db/repositories/tracks';
import type { EventRow } from '../../db/repositories/events';
import { envelope, envelopeSchema, ListQuery, pageRequest } from '../http/pagination';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { NotFoundError } from '../http/errors';
import { scopedEvent } from '../http/scope';
import { DetailResponse, IdResponse } from '../schemas/fields';
import { EventParams } from '../schemas/events';
import { Track, TrackCreate, TrackParams, TrackUpdate } from '../schemas/tracks';
import { MSG } from '../../core/messages';
import { writeTransaction } from '../../db/write-transaction';
import { changeTrack } from '../services/track-writes';

const notFound = { description: MSG.trackNotFound, content: { 'application/json': { schema: DetailResponse } } };

/**
 * Session tracks live under /sessions/tracks, so this router is mounted before the sessions
 * router: `tracks` must never be taken for a session id.
 *
 * Over 80 lines only as a table: one `route()` declaration per endpoint (schemas, answers, a
 * handler of a few lines), kept together so the resource's routes read in one place.
 */
export function tracksRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  async function requireTrack(event: EventRow, trackId: number) {
    const track = await findTrack(deps.db, event.id, trackId);
    if (!track) throw new NotFoundError(MSG.trackNotFound);
    return track;
  }

  route({
    method: 'post',
    path: '/events/{event_id}/sessions/tracks',
    operationId: 'createTrack',
    summary: 'Create a session track (answers 200, as the spec says)',
    tags: ['Session tracks'],
    params: EventParams,
    body: TrackCreate,
    responses: { 200: { description: 'Created', content: { 'application/json': { schema: IdResponse } } }, 404: MSG.eventNotFound },
    handler: async ({ params, body, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const id = await insertTrack(deps.db, event.id, body);
      return { status: 200, body: { id } };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/sessions/tracks',
    operationId: 'listTracks',
    summary: "List an event's session tracks",
    tags: ['Session tracks'],
    access: 'door',
    params: EventParams,
    query: ListQuery,
    responses: { 200: { description: 'Tracks', content: { 'application/json': { schema: envelopeSchema(Track, 'TrackList') } } }, 404: MSG.eventNotFound },
    handler: async ({ params, query, caller, req }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const { count, rows } = await listTracks(deps.db, event.id, pageRequest(query));
      return { status: 200, body: envelope(req, query, count, rows.map(toTrack)) };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/sessions/tracks/{track_id}',
    operationId: 'getTrack',
    summary: 'One session track',
    tags: ['Session tracks'],
    access: 'door',
    params: TrackParams,
    responses: { 200: { description: 'The track', content: { 'application/json': { schema: Track } } }, 404: notFound },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      return { status: 200, body: toTrack(await requireTrack(event, params.track_id)) };
    },
  });

  route({
    method: 'put',
    path: '/events/{event_id}/sessions/tracks/{track_id}',
    operationId: 'updateTrack',
    summary: 'Update a session track (every field optional)',
    tags: ['Session tracks'],
    params: TrackParams,
    body: TrackUpdate,
    responses: { 200: { description: 'Updated', content: { 'application/json': { schema: IdResponse } } }, 404: notFound },
    handler: async ({ params, body, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      // The track and its start before its end, in the write's transaction (server/services/track-writes.ts).
      await changeTrack(deps.db, event, params.track_id, body);
      return { status: 200, body: { id: params.track_id } };
    },
  });

  route({
    method: 'delete',
    path: '/events/{event_id}/sessions/tracks/{track_id}',
    operationId: 'deleteTrack',
    summary: 'Delete a session track; its sessions stay, without a track',
    tags: ['Session tracks'],
    params: TrackParams,
    responses: { 204: 'Deleted', 404: notFound },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const deleted = await writeTransaction(deps.db, (trx) => deleteTrack(trx, event.id, params.track_id));
      if (!deleted) throw new NotFoundError(MSG.trackNotFound);
      return { status: 204 };
    },
  });

  return router;
}
