import { listCheckins, toCheckin, undoCheckin } from '../../db/repositories/checkins';
import type { ScanOutcome } from '../services/scans';
import { eventStats } from '../../db/repositories/stats';
import { readSnapshot } from '../../db/knex';
import { envelope, envelopeSchema, pageRequest } from '../http/pagination';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { scannerOf } from '../http/auth';
import { NotFoundError } from '../http/errors';
import { scopedEvent } from '../http/scope';
import { scanBatches } from '../services/scan-batches';
import { DetailResponse } from '../schemas/fields';
import { Checkin, CheckinCreate, CheckinEventParams, CheckinListQuery, CheckinParams, EventStats, ScanAccepted, ScanConflict, ScanNotFound, ScanRefused, StatsQuery } from '../schemas/checkins';
import { recordHeartbeat, StationHeartbeats } from '../services/station-heartbeats';
import { supervisorBlock } from '../services/supervisor-stats';
import { MSG } from '../../core/messages';
import { SCAN_STATUS, type ScanStatus } from '../../core/scan';
import { writeTransaction } from '../../db/write-transaction';

/** The HTTP status of each scan answer (DESIGN "Check-in API"). */
const SCAN_HTTP_STATUS: Record<ScanStatus, number> = {
  [SCAN_STATUS.checkedIn]: 201,
  [SCAN_STATUS.checkedOut]: 201,
  [SCAN_STATUS.alreadyCheckedIn]: 409,
  [SCAN_STATUS.notCheckedIn]: 409,
  [SCAN_STATUS.notFound]: 404,
  [SCAN_STATUS.inactive]: 400,
  [SCAN_STATUS.sessionFull]: 400,
  [SCAN_STATUS.notRegistered]: 400,
};

const toReply = (outcome: ScanOutcome) => ({ status: SCAN_HTTP_STATUS[outcome.status], body: outcome.body });

const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema: schema as never } } });

/**
 * Scans at the door (through the scan service), their list, undo and the event's stats.
 *
 * Over 80 lines only as a table: one `route()` declaration per endpoint (schemas, answers, a
 * handler of a few lines), kept together so the resource's routes read in one place.
 */
export function checkinsRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);
  const recordScan = scanBatches(deps.db, deps.logger);
  const heartbeats = new StationHeartbeats();

  route({
    method: 'post',
    path: '/events/{event_id}/checkins',
    operationId: 'scanGuest',
    summary: 'Scan a guest in or out at the event door or a session door (exactly once per uid)',
    tags: ['Check-in'],
    access: 'door',
    params: CheckinEventParams,
    body: CheckinCreate,
    responses: {
      201: json(ScanAccepted, 'checked_in or checked_out'),
      400: json(ScanRefused, 'inactive, not_registered, session_full; or field errors'),
      404: json(ScanNotFound, 'not_found (guest), or {detail} for an unknown event or session'),
      409: json(ScanConflict, 'already_checked_in (with checked_in_at and checked_in_station), not_checked_in'),
    },
    // Scope, the remembered answer and the decision in one transaction: nothing read before it
    // decides anything. Scans that queue behind the writer share one (server/services/scan-batches.ts).
    handler: async ({ params, body, caller }) => {
      const input = {
        barcode: body.barcode,
        nfcTag: body.nfc_tag,
        guestId: body.guest_id,
        sessionId: body.session_id,
        direction: body.direction,
        uid: body.uid,
        scannedAt: body.scanned_at,
        station: body.station,
        scannedBy: scannerOf(caller),
      };
      return toReply(await recordScan({ eventId: params.event_id, scope: caller.groups, input }));
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/checkins',
    operationId: 'listCheckins',
    summary: 'List the scans that stand; undone ones (with undone_at) too with include_undone=true or in a timestamp delta',
    tags: ['Check-in'],
    access: 'door',
    params: CheckinEventParams,
    query: CheckinListQuery,
    responses: { 200: json(envelopeSchema(Checkin, 'CheckinList'), 'Check-ins'), 404: MSG.eventNotFound },
    handler: async ({ params, query, caller, req }) => {
      const event = await scopedEvent(deps.readDb, caller, params.event_id);
      const filter = { guestId: query.guest_id, sessionId: query.session_id, includeUndone: query.include_undone };
      // One read transaction: the count and the page come from the same snapshot.
      const { count, rows } = await readSnapshot(deps.readDb, (trx) => listCheckins(trx, event.id, filter, pageRequest(query)));
      return { status: 200, body: envelope(req, query, count, rows.map(toCheckin)) };
    },
  });

  route({
    method: 'delete',
    path: '/events/{event_id}/checkins/{checkin_id}',
    operationId: 'undoCheckin',
    summary: "Undo a mistaken scan; the guest's state follows the scans that remain",
    tags: ['Check-in'],
    access: 'own-scan',
    params: CheckinParams,
    responses: { 204: 'Undone', 404: json(DetailResponse, `${MSG.checkinNotFound} (unknown or already undone)`) },
    handler: async ({ params, caller }) => {
      const undone = await writeTransaction(deps.db, async (trx) => {
        const event = await scopedEvent(trx, caller, params.event_id);
        return undoCheckin(trx, event.id, params.checkin_id);
      });
      if (!undone) throw new NotFoundError(MSG.checkinNotFound);
      return { status: 204 };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/stats',
    operationId: 'getEventStats',
    summary:
      "Door numbers: totals, checked in, per registration type, session and station, arrivals per 5 minutes (never stale); a door station's heartbeat (station, queued); the supervisor view's figures (supervisor=true)",
    tags: ['Check-in'],
    access: 'door',
    params: CheckinEventParams,
    query: StatsQuery,
    responses: { 200: json(EventStats, 'Stats'), 404: MSG.eventNotFound },
    // One read transaction on the read connection: every figure from one snapshot that includes
    // every answered write, and no scan waits for it.
    handler: async ({ params, query, caller }) => {
      const event = await scopedEvent(deps.readDb, caller, params.event_id);
      if (query.station !== undefined) {
        await recordHeartbeat(deps.db, heartbeats, { eventId: event.id, station: query.station, queued: query.queued ?? 0, caller: scannerOf(caller), previous: query.previous_station });
      }
      const body = await readSnapshot(deps.readDb, async (trx) => {
        const door = await eventStats(trx, event.id);
        return query.supervisor ? { ...door, supervisor: await supervisorBlock(trx, event.id, door, heartbeats) } : door;
      });
      return { status: 200, body };
    },
  });

  return router;
}
