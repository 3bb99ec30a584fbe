import type { Logger } from 'pino';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z, type ZodType } from 'zod';
import { poolSize, type Db } from '../../db/knex';
import type { Config } from '../config';
import type { Authenticator, Caller } from './auth';
import { HttpError, NotFoundError, ValidationError, type FieldErrors } from './errors';
import { authorize, type Access, type ScopeParams } from './scope';
import { fieldErrorsOf } from '../schemas/field-errors';
import { MSG } from '../../core/messages';
import { isLostConnection } from '../../db/errors';
import { DECLARED_REPLIES, replyDrift } from './reply-check';
import { MAX_CONCURRENT_UPLOADS, UPLOAD_RETRY_AFTER_S, UploadSlots, type UploadPool } from './upload-slots';
import { watchUploadPace } from './upload-body';
import { writeError } from './error-handler';
import { routeTable } from './methods';
import type { ApiTag, RouteDocuments } from './openapi';
import { documentRoute, PARAM_NOT_FOUND, responseConfigs } from './route-document';
import type { RequestsUnderWay } from './requests-under-way';

// One bound per app: every router of an app is built from the same deps.
const uploadSlots = new WeakMap<HttpDeps, UploadSlots>();

/**
 * What route() itself needs of the app (server/routes/deps.ts `RouteDeps` is all a router is
 * built from); injected so tests run real routers on their own database.
 */
export interface HttpDeps {
  /** Writes and the reads that decide them (one connection on SQLite: writes never wait on each other's locks). */
  db: Db;
  /** Long or frequent reads (lists, stats, exports): their own connection, each a snapshot of what is committed. */
  readDb: Db;
  config: Config;
  /** The routes' documentation, built into the OpenAPI document on its first request. */
  documents: RouteDocuments;
  auth: Authenticator;
  /** The server's log: what a request's error line does not tell (a failed batch's reason). */
  logger: Logger;
  /** Answered writes to an event, for the sync follower to push without waiting for its timer. */
  localWrites: { noteWrite(eventId: number): void };
  /** Handlers still running, for a stopping server to let finish before its database closes. */
  underWay: RequestsUnderWay;
}

export interface Reply {
  status: number;
  /** Sent as JSON; a Buffer is JSON text already (built by the database) and is sent as it is. */
  body?: unknown;
}

type Infer<S> = S extends ZodType ? z.output<S> : undefined;

export interface RouteContext<P, Q, B> {
  params: Infer<P>;
  query: Infer<Q>;
  body: Infer<B>;
  /** Absent only on public routes. */
  caller: Caller;
  req: Request;
  res: Response;
}

export interface RouteDefinition<P extends ZodType | undefined, Q extends ZodType | undefined, B extends ZodType | undefined> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI form, relative to /api/v1: `/events/{event_id}/guests` (a trailing slash is the same route). */
  path: string;
  /** The operation's stable name in the document (and in generated clients): `listGuests`. Never renamed. */
  operationId: string;
  summary: string;
  /** What the schemas cannot say (one field winning over another, "exactly one of"); the role needed is added. */
  description?: string;
  /** One tag of the document's top-level list (openapi.ts `TAGS`). */
  tags: [ApiTag];
  /** Public routes skip the Authorization check (only the auth call, first-run set-up and the API document). */
  public?: boolean;
  /** The least role the route needs (scope.ts `Access`); `manager` unless declared. */
  access?: Access;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * Refuse any body but JSON (415): a web page can post a form to the laptop cross-site, but not
   * JSON without a CORS grant, which is never given. For sign-in and first-run set-up.
   */
  jsonOnly?: boolean;
  /** The spec documents some bodies as query parameters: accept both, the body winning. */
  bodyAlsoFromQuery?: boolean;
  /**
   * Set when the handler reads the raw request itself (file uploads): it takes an upload slot
   * of `pool` (imports unless said) for the caller, and its body is held to the upload pace.
   */
  rawBody?: { contentType: string; description: string; pool?: UploadPool };
  /**
   * The body as the document shows it, where that is not `body`: one a handler reads itself (sign-in
   * answers every refusal alike), or one whose field the spec leaves out (SessionUpdate's create-only capacity).
   */
  documentedBody?: ZodType;
  responses: Record<number, string | ResponseConfig>;
  /** Returns the reply, or nothing when it wrote the response itself (downloads). */
  handler: (ctx: RouteContext<P, Q, B>) => Promise<Reply | void>;
}

export { fieldErrorsOf };

/** Parses client input with a schema; failures become the spec's 400 field errors. */
export function parseInput<S extends ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(fieldErrorsOf(result.error));
  return result.data;
}

function paramNotFound(error: z.ZodError): NotFoundError {
  const param = String(error.issues[0]?.path[0] ?? '');
  return PARAM_NOT_FOUND[param]?.() ?? new NotFoundError();
}

const REPLACEMENT_CHARACTER = '\uFFFD';

/**
 * Whether a parsed body or query holds U+FFFD, the character the body and query parsers put in
 * place of bytes that are not UTF-8: such input is refused rather than stored garbled.
 * Iterative, so a deeply nested body cannot overflow the stack.
 */
function hasUndecodableText(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (item.includes(REPLACEMENT_CHARACTER)) return true;
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, nested] of Object.entries(item)) {
        if (key.includes(REPLACEMENT_CHARACTER)) return true;
        pending.push(nested);
      }
    }
  }
  return false;
}

// A body the parsers refused, kept for route() to answer once the caller is known.
const BODY_ERROR = Symbol('bodyError');

type ParsedRequest = Request & { [BODY_ERROR]?: unknown };

/**
 * Runs a body parser but leaves its refusal (malformed JSON, too large, unknown charset) to
 * route(), which answers it after the Authorization check: without a valid token every
 * route answers 401, whatever the body.
 */
function deferBodyErrors(parser: RequestHandler): RequestHandler {
  return (req, res, next) => {
    void parser(req, res, (err?: unknown) => {
      if (err !== undefined && err !== null) (req as ParsedRequest)[BODY_ERROR] = err;
      next();
    });
  };
}

const JSON_LIMIT = '1mb';
const JSON_BODY_TYPES = ['application/json', 'application/*+json'];
const BODY_TYPES = [...JSON_BODY_TYPES, 'application/x-www-form-urlencoded'];

/**
 * The body of a route's request, parsed by its type: JSON, or a form; any other is left for
 * the handler (uploads) or refused by parseQueryAndBody. Only a request that reached a route
 * is read, and only by the one parser its type names. Whether there is a body is judged as
 * the parsers judge it (type-is: a length, even 0, or a transfer encoding).
 */
const readBody: RequestHandler = (() => {
  const json = deferBodyErrors(express.json({ limit: JSON_LIMIT, type: JSON_BODY_TYPES }));
  const form = deferBodyErrors(express.urlencoded({ limit: JSON_LIMIT, extended: false }));
  return (req, res, next) => {
    if (!announcesBody(req)) return next();
    return req.is(JSON_BODY_TYPES) ? json(req, res, next) : form(req, res, next);
  };
})();

/** A body as the parsers see one: a length header (even 0) or a transfer encoding. */
function announcesBody(req: Request): boolean {
  const { 'transfer-encoding': encoding, 'content-length': length } = req.headers;
  return encoding !== undefined || !Number.isNaN(Number(length));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A body with bytes in it: what a content type is then checked for (an empty body has no type to check). */
function hasBodyBytes(req: Request): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

function toExpressPath(openApiPath: string): string {
  return openApiPath.replace(/\{(\w+)\}/g, ':$1');
}

/** A route's declaration without its handler: what documents it and reads its input. */
type Declaration = Omit<RouteDefinition<ZodType | undefined, ZodType | undefined, ZodType | undefined>, 'handler'>;

/** The query and body as the route's schemas read them; a body the parsers refused is answered here. */
function parseQueryAndBody(def: Declaration, req: Request): { query: unknown; body: unknown } {
  const bodyError = (req as ParsedRequest)[BODY_ERROR];
  if (bodyError !== undefined) throw bodyError;
  if (def.jsonOnly && hasBodyBytes(req) && !req.is(JSON_BODY_TYPES)) throw new HttpError(415, { detail: MSG.jsonOnly });
  if (def.query && hasUndecodableText(req.query)) throw new ValidationError({ detail: MSG.queryNotUtf8 });
  const query = def.query ? parseInput(def.query, req.query) : undefined;
  if (!def.body) return { query, body: undefined };
  if (hasBodyBytes(req) && !req.is(BODY_TYPES)) throw new ValidationError({ detail: MSG.unsupportedContentType });
  const raw = req.body === undefined ? {} : req.body;
  if (!isPlainObject(raw)) throw new ValidationError({ detail: MSG.bodyNotObject });
  if (hasUndecodableText(raw)) throw new ValidationError({ detail: MSG.bodyNotUtf8 });
  if (def.bodyAlsoFromQuery && hasUndecodableText(req.query)) throw new ValidationError({ detail: MSG.queryNotUtf8 });
  return { query, body: parseInput(def.body, def.bodyAlsoFromQuery ? { ...req.query, ...raw } : raw) };
}

/** One of the app's upload slots for this caller, or the 429 / 503 that tells the client to come back. */
async function takeUploadSlot(uploads: UploadSlots, pool: UploadPool, caller: Caller, req: Request, res: Response): Promise<() => void> {
  const length = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
  // A client that goes away while its small push waits gives its place up.
  const gone = new AbortController();
  const leave = () => gone.abort();
  req.once('close', leave);
  const answer = await uploads.take(pool, `${caller.kind}:${caller.id}`, Number.isFinite(length) ? length : undefined, gone.signal);
  req.off('close', leave);
  if ('release' in answer && gone.signal.aborted) answer.release();
  if ('release' in answer) return answer.release;
  // The body is not read: the connection closes after the answer instead.
  res.setHeader('Connection', 'close');
  res.setHeader('Retry-After', String(UPLOAD_RETRY_AFTER_S));
  if (answer.refused === 'caller') throw new HttpError(429, { detail: MSG.uploadsBusyForCaller(answer.limit) });
  throw new HttpError(503, { detail: MSG.uploadsBusy(answer.limit) });
}

/**
 * An upload's slot, held to the upload pace: a body that stalls or trickles is answered 408 at
 * once (its connection then closed) and its slot freed, while its handler unwinds on the cut.
 */
async function holdUpload(uploads: UploadSlots, pool: UploadPool, deps: HttpDeps, caller: Caller, req: Request, res: Response): Promise<() => void> {
  const release = await takeUploadSlot(uploads, pool, caller, req, res);
  const { uploadIdleTimeoutMs: idleMs, uploadMinBytesPerSecond: minBytesPerSecond, uploadGraceMs: graceMs } = deps.config;
  const stopWatching = watchUploadPace(req, { idleMs, minBytesPerSecond, graceMs }, ({ reason, error }) => {
    if (res.headersSent) return;
    release();
    deps.logger.warn({ reason, method: req.method, path: req.path }, 'upload cut: its body arrived too slowly');
    res.setHeader('Connection', 'close');
    res.once('finish', () => req.destroy());
    writeError(error, req, res);
  });
  return () => {
    stopWatching();
    release();
  };
}

/** Test servers only (config.checkReplies): an answer that drifted from its documentation fails loudly. */
function refuseDrift(def: Declaration, responses: Record<string, ResponseConfig>, reply: Reply): void {
  const drift = replyDrift(responses, reply.status, reply.body);
  if (drift.length === 0) return;
  console.error(`${def.method.toUpperCase()} ${def.path} answered off its declared schema:\n  ${drift.join('\n  ')}`);
  throw new HttpError(500, { detail: 'The answer does not match the schema its route declares.', drift });
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The reply as res.json would send it (the app sets no JSON replacer, spacing or escaping, and
 * no ETag), written straight to the response: the bytes and headers the same, without
 * res.json's and res.send's per-answer checks. A 204 has no body; HEAD's body Node leaves out.
 */
function sendReply(res: Response, reply: Reply): void {
  res.statusCode = reply.status;
  if (reply.body === undefined || reply.status === 204) {
    res.end();
    return;
  }
  // JSON text the database built is always sent as JSON (res.type); an object keeps a type a handler set (res.json).
  if (Buffer.isBuffer(reply.body)) {
    res.setHeader('Content-Type', JSON_CONTENT_TYPE);
    res.setHeader('Content-Length', reply.body.length);
    res.end(reply.body);
    return;
  }
  const body = JSON.stringify(reply.body);
  if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * A router for one resource whose routes are declared once: the same zod schemas
 * validate the request and describe it in the OpenAPI document.
 */
export function resourceRouter(deps: HttpDeps) {
  const router = Router();
  // Every pooled connection may be one PostgreSQL dropped at once; each try retires one.
  const lostConnectionAttempts = poolSize(deps.db) + poolSize(deps.readDb) + 1;
  if (!uploadSlots.has(deps)) uploadSlots.set(deps, new UploadSlots());
  const uploads = uploadSlots.get(deps)!;

  function route<P extends ZodType | undefined = undefined, Q extends ZodType | undefined = undefined, B extends ZodType | undefined = undefined>(
    def: RouteDefinition<P, Q, B>,
  ): void {
    const access = def.access ?? 'manager';
    // Every answer the route gives, as the document lists it: built when the document is first
    // asked for or, on test servers, now, as the reply check holds every answer to it.
    let declared: Record<string, ResponseConfig> | undefined;
    const responses = () => (declared ??= responseConfigs(def, access));
    if (deps.config.checkReplies) responses();
    deps.documents.add((registry) => documentRoute(registry, def, access, responses()));
    routeTable(deps).add(def.method, def.path);

    router[def.method](toExpressPath(def.path), readBody, (req: Request, res: Response) => {
      // The error handler holds an error answer to the same declaration (test servers only).
      if (deps.config.checkReplies) res.locals[DECLARED_REPLIES] = { route: `${def.method.toUpperCase()} ${def.path}`, responses: responses() };
      return deps.underWay.run(async () => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await answer(req, res);
          } catch (err) {
            // A read that met a connection PostgreSQL had dropped is asked again on another (the
            // pool retires each dead one as it shows): the caller gets its answer, not a 503.
            if (def.method !== 'get' || res.headersSent || attempt >= lostConnectionAttempts || !isLostConnection(err)) throw err;
          }
        }
      });
    });

    async function answer(req: Request, res: Response): Promise<void> {
      const caller = def.public ? (undefined as unknown as Caller) : await deps.auth.authenticate(req);
      let params: unknown;
      if (def.params) {
        const parsed = def.params.safeParse(req.params);
        if (!parsed.success) throw paramNotFound(parsed.error);
        params = parsed.data;
      }
      // Role before any input is read: a caller who may not do this learns nothing from its body.
      if (!def.public) await authorize(deps.db, caller, access, params as ScopeParams);
      const { query, body } = parseQueryAndBody(def, req);
      const release = def.rawBody ? await holdUpload(uploads, def.rawBody.pool ?? 'import', deps, caller, req, res) : undefined;
      let reply: Reply | void;
      try {
        reply = await def.handler({ params, query, body, caller, req, res } as RouteContext<P, Q, B>);
      } finally {
        release?.();
      }
      if (!reply) return;
      if (deps.config.checkReplies) refuseDrift(def, responses(), reply);
      const eventId = (params as { event_id?: unknown } | undefined)?.event_id;
      if (def.method !== 'get' && reply.status < 300 && typeof eventId === 'number') deps.localWrites.noteWrite(eventId);
      sendReply(res, reply);
    }
  }

  return { router, route };
}
