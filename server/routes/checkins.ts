import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { listCheckins, scanDesk, toCheckin, undoCheckin, type ScanDesk, type ScanReply } from '../../db/repositories/checkins';
import { eventStats } from '../../db/repositories/stats';
import { envelope, envelopeSchema, pageRequest } from '../pagination';
import { parseInput, resourceRouter, type RouteDeps } from '../route';
import { scannerOf, type Caller } from '../auth';
import { HttpError, NotFoundError, ValidationError } from '../errors';
import { scopedEvent } from '../scope';
import { DetailResponse } from '../schemas/fields';
import {
  Checkin,
  CheckinCreate,
  type CheckinCreateInput,
  CheckinEventParams,
  CheckinListQuery,
  CheckinParams,
  EventStats,
  ScanAccepted,
  ScanRefused,
} from '../schemas/checkins';
import { MSG } from '../../core/messages';

/** One scan, for the declared route and the fast path alike. */
async function answerScan(desk: ScanDesk, caller: Caller, eventId: number, body: CheckinCreateInput): Promise<ScanReply> {
  // The desk checks the event's scope inside the scan's transaction (scopedEvent's rule),
  // one lookup per batch of scans rather than one per scan.
  const reply = await desk.scan({
    eventId,
    scope: caller.groups,
    barcode: body.barcode,
    nfcTag: body.nfc_tag,
    guestId: body.guest_id,
    sessionId: body.session_id,
    direction: body.direction,
    uid: body.uid,
    scannedAt: body.scanned_at,
    station: body.station,
    scannedBy: scannerOf(caller),
  });
  // Refusals are remembered answers like any other; the error handler writes them.
  if (reply.status >= 400) throw new HttpError(reply.status, reply.body);
  return reply;
}

const SCAN_PATH = /^\/api\/v1\/events\/([^/?]+)\/checkins\/?(?:\?.*)?$/;
const JSON_UTF8 = /^application\/json\s*(;\s*charset=utf-8\s*)?$/i;
const SCAN_BODY_LIMIT = 1024 * 1024;
const REPLACEMENT_CHARACTER = '\uFFFD';
// Set on a request whose scan failed before Express saw it (scanFirst): Express's error handler writes the answer.
const SCAN_FAILED = Symbol('scanFailed');
// Parsed event ids of the path, so a door's repeated id is not run through zod for every scan.
const EVENT_ID_CACHE_SIZE = 1024;

type ScanRequest = IncomingMessage & { [SCAN_FAILED]?: unknown };
type Next = (err?: unknown) => void;

/** The route's rule: text that was not UTF-8 arrives as U+FFFD and is refused, never stored garbled. */
function hasUndecodableText(raw: string, json: unknown): boolean {
  if (raw.includes(REPLACEMENT_CHARACTER)) return true;
  // An escaped \ufffd decodes to the same character; only then is the parsed body walked.
  if (!/\\u[fF][fF][fF][dD]/.test(raw)) return false;
  return JSON.stringify(json).includes(REPLACEMENT_CHARACTER);
}

/**
 * The door's scan without Express's per-request machinery (request logger, body parser,
 * router walk, ETag): it takes `POST /api/v1/events/:id/checkins` with a JSON body and
 * declines anything else to the declared route, which stays the documented one. Same steps
 * in the same order as `route()`: authenticate, path, body, answerScan; every error goes to
 * the one error handler. Mounted first in Express, and usable before Express (scanFirst):
 * it uses node:http's request and response only.
 */
export function scanFastPath(deps: RouteDeps, logger: Logger) {
  const desk = scanDesk(deps.db);
  const eventIds = new Map<string, number | undefined>();
  const eventIdOf = (raw: string): number | undefined => {
    if (eventIds.has(raw)) return eventIds.get(raw);
    const params = CheckinEventParams.safeParse({ event_id: raw });
    if (eventIds.size >= EVENT_ID_CACHE_SIZE) eventIds.clear();
    const id = params.success ? params.data.event_id : undefined;
    eventIds.set(raw, id);
    return id;
  };

  return (req: ScanRequest, res: ServerResponse, next: Next): void => {
    if (req[SCAN_FAILED] !== undefined) return next(req[SCAN_FAILED]);
    if (req.method !== 'POST') return next();
    const match = SCAN_PATH.exec(req.url ?? '');
    if (!match || !JSON_UTF8.test(req.headers['content-type'] ?? '')) return next();
    if (logger.isLevelEnabled('info')) {
      const started = process.hrtime.bigint();
      res.once('finish', () => {
        const responseTime = Number(process.hrtime.bigint() - started) / 1e6;
        logger.info({ req: { method: req.method, url: req.url }, res: { statusCode: res.statusCode }, responseTime }, 'request completed');
      });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= SCAN_BODY_LIMIT) chunks.push(chunk);
    });
    req.on('error', next);
    req.on('end', () => {
      const raw = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
      respond(raw).catch(next);
    });

    async function respond(raw: string): Promise<void> {
      // As in route(): the caller first (no valid token is a 401 whatever the body), then what
      // the body parser would refuse, then the path and the body.
      const caller = await deps.auth.authenticate(req);
      if (size > SCAN_BODY_LIMIT) throw new HttpError(413, { detail: MSG.bodyTooLarge });
      let json: unknown = {};
      if (raw.length > 0) {
        try {
          json = JSON.parse(raw);
        } catch {
          throw new ValidationError({ detail: MSG.malformedJson });
        }
      }
      const eventId = eventIdOf(match![1]);
      if (eventId === undefined) throw new NotFoundError(MSG.eventNotFound);
      if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ValidationError({ detail: MSG.bodyNotObject });
      if (hasUndecodableText(raw, json)) throw new ValidationError({ detail: MSG.bodyNotUtf8 });
      const reply = await answerScan(desk, caller, eventId, parseInput(CheckinCreate, json));
      const out = reply.json ?? JSON.stringify(reply.body);
      res.writeHead(reply.status, ['content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(out))]);
      res.end(out);
    }
  };
}

/**
 * The HTTP server's listener with the scan's fast path in front of Express: a scan then skips
 * Express's request and response set-up and router walk (about a third of a scan's CPU and
 * most of its garbage). Whatever the fast path declines goes to Express as is; what fails in
 * it goes to Express marked, and the fast path, mounted first there, hands the error on to the
 * one error handler.
 */
export function scanFirst(fast: ReturnType<typeof scanFastPath>, app: RequestListener): RequestListener {
  return (req: ScanRequest, res) => {
    fast(req, res, (err) => {
      if (err !== undefined) req[SCAN_FAILED] = err;
      app(req, res);
    });
  };
}

const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema: schema as never } } });

// Every door screen polls the stats; at 100k guests one computation holds the database's only
// connection for a noticeable time, so each event's figures are computed at most this often.
const STATS_TTL_MS = 2000;

/** Recent stats per event, one computation in flight at a time (callers are scope-checked first). */
class StatsCache {
  private entries = new Map<number, { at: number; value: Promise<Awaited<ReturnType<typeof eventStats>>> }>();

  constructor(private readonly db: RouteDeps['db']) {}

  of(eventId: number) {
    const now = Date.now();
    const hit = this.entries.get(eventId);
    if (hit && now - hit.at < STATS_TTL_MS) return hit.value;
    const value = eventStats(this.db, eventId);
    this.entries.set(eventId, { at: now, value });
    value.catch(() => this.entries.delete(eventId));
    return value;
  }
}

export function checkinsRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);
  const desk = scanDesk(deps.db);
  const stats = new StatsCache(deps.db);

  // Declared here for the API document and for requests the fast path declines (form posts, ...).
  route({
    method: 'post',
    path: '/events/{event_id}/checkins',
    summary: 'Scan a guest in or out at the event door or a session door (exactly once per uid)',
    tags: ['Check-in'],
    access: 'door',
    params: CheckinEventParams,
    body: CheckinCreate,
    responses: {
      201: json(ScanAccepted, 'checked_in or checked_out'),
      400: json(ScanRefused, 'inactive, not_registered, session_full; or field errors'),
      404: json(ScanRefused, 'not_found (guest), or {detail} for an unknown event or session'),
      409: json(ScanRefused, 'already_checked_in, not_checked_in'),
    },
    handler: ({ params, body, caller }) => answerScan(desk, caller, params.event_id, body),
  });

  route({
    method: 'get',
    path: '/events/{event_id}/checkins',
    summary: 'List check-ins (undone ones included, with undone_at set, so a delta sync sees the undo)',
    tags: ['Check-in'],
    access: 'door',
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
    access: 'own-scan',
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
    summary: 'Door numbers: totals, checked in, per registration type, session and station, arrivals per 5 minutes (at most 2 s old)',
    tags: ['Check-in'],
    access: 'door',
    params: CheckinEventParams,
    responses: { 200: json(EventStats, 'Stats'), 404: MSG.eventNotFound },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      return { status: 200, body: await stats.of(event.id) };
    },
  });

  return router;
}
