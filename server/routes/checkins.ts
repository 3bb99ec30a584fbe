import { listCheckins, scanDesk, toCheckin, undoCheckin } from '../../db/repositories/checkins';
import { eventStats } from '../../db/repositories/stats';
import { envelope, envelopeSchema, pageRequest } from '../pagination';
import { resourceRouter, type RouteDeps } from '../route';
import { HttpError, NotFoundError } from '../errors';
import { scopedEvent } from '../scope';
import { DetailResponse } from '../schemas/fields';
import {
  Checkin,
  CheckinCreate,
  CheckinEventParams,
  CheckinListQuery,
  CheckinParams,
  EventStats,
  ScanAccepted,
  ScanRefused,
} from '../schemas/checkins';
import { MSG } from '../schemas/messages';

const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema: schema as never } } });

export function checkinsRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);
  const desk = scanDesk(deps.db);

  route({
    method: 'post',
    path: '/events/{event_id}/checkins',
    summary: 'Scan a guest in or out at the event door or a session door (exactly once per uid)',
    tags: ['Check-in'],
    params: CheckinEventParams,
    body: CheckinCreate,
    responses: {
      201: json(ScanAccepted, 'checked_in or checked_out'),
      400: json(ScanRefused, 'inactive, not_registered, session_full; or field errors'),
      404: json(ScanRefused, 'not_found (guest), or {detail} for an unknown event or session'),
      409: json(ScanRefused, 'already_checked_in, not_checked_in'),
    },
    handler: async ({ params, body, caller }) => {
      // The desk checks the event's scope inside the scan's transaction (scopedEvent's rule),
      // one lookup per batch of scans rather than one per scan.
      const reply = await desk.scan({
        eventId: params.event_id,
        scope: caller.groups,
        barcode: body.barcode,
        nfcTag: body.nfc_tag,
        guestId: body.guest_id,
        sessionId: body.session_id,
        direction: body.direction,
        uid: body.uid,
        scannedAt: body.scanned_at,
        station: body.station,
      });
      // Refusals are remembered answers like any other; the error handler writes them.
      if (reply.status >= 400) throw new HttpError(reply.status, reply.body);
      return reply;
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/checkins',
    summary: 'List check-ins (undone ones included, with undone_at set, so a delta sync sees the undo)',
    tags: ['Check-in'],
    params: CheckinEventParams,
    query: CheckinListQuery,
    responses: { 200: json(envelopeSchema(Checkin, 'CheckinList'), 'Check-ins'), 404: MSG.eventNotFound },
    handler: async ({ params, query, caller, req }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const { count, rows } = await listCheckins(deps.db, event.id, { guestId: query.guest_id, sessionId: query.session_id }, pageRequest(query));
      return { status: 200, body: envelope(req, query, count, rows.map(toCheckin)) };
    },
  });

  route({
    method: 'delete',
    path: '/events/{event_id}/checkins/{checkin_id}',
    summary: "Undo a mistaken scan; the guest's state follows the scans that remain",
    tags: ['Check-in'],
    params: CheckinParams,
    responses: { 204: 'Undone', 404: json(DetailResponse, `${MSG.checkinNotFound} (unknown or already undone)`) },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const undone = await deps.db.transaction((trx) => undoCheckin(trx, event.id, params.checkin_id));
      if (!undone) throw new NotFoundError(MSG.checkinNotFound);
      return { status: 204 };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/stats',
    summary: 'Door numbers: totals, checked in, per registration type, session and station, arrivals per 5 minutes',
    tags: ['Check-in'],
    params: CheckinEventParams,
    responses: { 200: json(EventStats, 'Stats'), 404: MSG.eventNotFound },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      return { status: 200, body: await eventStats(deps.db, event.id) };
    },
  });

  return router;
}
