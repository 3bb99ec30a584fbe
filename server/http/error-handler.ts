import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { ConflictError, DomainError, NotFoundError, ValidationError } from '../../core/errors';
import { HttpError } from './errors';
import { MSG } from '../../core/messages';
import { classifyDbError } from '../../db/errors';
import { requestLog } from './request-log';
import { DECLARED_REPLIES, errorDrift, type DeclaredReplies } from './reply-check';

interface BodyParserError {
  type?: string;
  status?: number;
  body?: unknown;
}

/** The JSON parser refuses a top-level `null`, `"x"` or `1` as malformed; it is JSON, just not an object. */
function isJsonButNotObject(raw: unknown): boolean {
  if (typeof raw !== 'string') return false;
  try {
    JSON.parse(raw);
    return true;
  } catch {
    return false;
  }
}

/** The single place that writes an error response. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => writeError(err, req, res);

/** The error handler's answer, for what must answer before its handler ends (an upload cut for being slow). */
export function writeError(err: unknown, req: Request, res: Response): void {
  // A client that hung up (a phone leaving Wi-Fi mid-download) is no failure of ours.
  if (res.destroyed || req.socket?.destroyed === true) {
    requestLog(req)?.info({ code: (err as { code?: unknown })?.code }, 'client went away before the answer was whole');
    return;
  }
  // A download that failed after its headers: the client must see it cut, not a short file that ended well.
  if (res.headersSent) {
    requestLog(req)?.error({ err }, 'response failed after its headers were sent');
    res.destroy();
    return;
  }
  let { status, body } = describe(err);
  // Test servers: an error answer off its route's declared schema fails as loudly as a reply would.
  const declared = res.locals[DECLARED_REPLIES] as DeclaredReplies | undefined;
  const drift = errorDrift(declared, status, body);
  if (drift.length > 0) {
    console.error(`${declared!.route} answered ${status} off its declared schema:\n  ${drift.join('\n  ')}`);
    ({ status, body } = { status: 500, body: { detail: 'The answer does not match the schema its route declares.', drift } });
  }
  // The answer's own words say what staff can do; the log keeps the cause beside them.
  if (status === 503) requestLog(req)?.warn({ err }, body.detail as string);
  else if (status >= 500) requestLog(req)?.error({ err }, 'request failed');
  // A request whose body was cut off (an upload refused midway) leaves its connection unable to
  // carry another: the client is told to open a new one rather than wait on this one.
  if (req.destroyed) res.setHeader('Connection', 'close');
  res.status(status).json(body);
}

export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).json({ detail: MSG.notFound });
};

/** The HTTP status of each kind of domain error: the only place the two meet. */
function statusOf(err: DomainError): number {
  if (err instanceof ValidationError) return 400;
  if (err instanceof NotFoundError) return 404;
  if (err instanceof ConflictError) return 409;
  return 500;
}

function describe(err: unknown): { status: number; body: Record<string, unknown> } {
  if (err instanceof HttpError) return { status: err.status, body: err.body };
  if (err instanceof DomainError) return { status: statusOf(err), body: err.body };
  const parserError = err as BodyParserError;
  switch (parserError?.type) {
    case 'entity.parse.failed':
      return { status: 400, body: { detail: isJsonButNotObject(parserError.body) ? MSG.bodyNotObject : MSG.malformedJson } };
    case 'entity.too.large':
      return { status: 413, body: { detail: MSG.bodyTooLarge } };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 400, body: { detail: MSG.unsupportedContentType } };
  }
  switch (classifyDbError(err)?.kind) {
    // Repositories turn the constraint failures a client can cause into field errors; this
    // net keeps an unforeseen one a 4xx rather than a 500.
    case 'unique':
    case 'integrity':
      return { status: 400, body: { detail: MSG.integrityConflict } };
    // Retries spent, lock or statement timeout: the client may simply try again.
    case 'retryable':
    case 'busy':
      return { status: 503, body: { detail: MSG.databaseBusy } };
    // The pool reconnects by itself once the database is back.
    case 'unavailable':
      return { status: 503, body: { detail: MSG.databaseUnavailable } };
    case 'full':
      return { status: 503, body: { detail: MSG.databaseFull } };
    case 'not-writable':
      return { status: 503, body: { detail: MSG.databaseNotWritable } };
  }
  // An upload or export spooled to the temporary folder met a full disk.
  const fsCode = (err as NodeJS.ErrnoException | undefined)?.code;
  if (fsCode === 'ENOSPC' || fsCode === 'EDQUOT') return { status: 503, body: { detail: MSG.tempDiskFull } };
  // Express's and its helpers' own 4xx (a malformed %-escape, a refused file path): a fixed
  // message, never theirs, which can carry server paths.
  if (typeof parserError?.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
    const status = parserError.status;
    if (status === 404) return { status, body: { detail: MSG.notFound } };
    if (err instanceof URIError || /decode/i.test((err as Error).message ?? '')) return { status: 400, body: { detail: MSG.malformedUrl } };
    return { status, body: { detail: STATUS_CODES[status] ?? MSG.badRequest } };
  }
  return { status: 500, body: { detail: MSG.internalError } };
}
