import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MSG } from '../../core/messages';
import { storedInstant } from '../../core/time';
import { EVENT_FILE_MEDIA_TYPE } from '../event-file';
import { UpstreamEventList, UpstreamPushAnswer } from '../schemas/sync';
import { IssuedCertificate } from '../schemas/lan';
import { VenueAnswer, type VenueHello } from '../schemas/venue';
import type { z } from '../schemas/zod';
import { DEFAULT_TIMING, ExchangeClock, type UpstreamTiming } from './exchange-clock';
import { connectPinned, connectWithin } from './pinned-connection';
import { pullGuard } from './pull-guard';
import { UpstreamError, type UpstreamField } from './upstream-error';

export { UpstreamError, type UpstreamField } from './upstream-error';
export { DEFAULT_TIMING, type UpstreamTiming } from './exchange-clock';

/**
 * The one client of an upstream Doorlist. Everything an upstream answers is bounded and
 * nothing of it is repeated to the user or the log: errors are this laptop's own messages,
 * named by their real cause (unreachable, hung, too slow, certificate, key refused, plain
 * HTTP refused). HTTPS is judged before a byte of the request (and its key) is sent
 * (pinned-connection.ts); every exchange runs on its own clock (exchange-clock.ts).
 */

/** The upstream's clock at the moment its answer's snapshot was taken. */
export const CURSOR_HEADER = 'x-doorlist-cursor';

export const UPSTREAM_LIMITS = {
  /** An event file down (the same bound as an upload of one); pull-guard.ts stops it sooner at what the file itself declares. */
  fileBytes: 500 * 1024 * 1024,
  /** A JSON answer (the events list; a push's findings, less for a small push). */
  jsonBytes: 32 * 1024 * 1024,
  /**
   * A push's answer is its findings about what was pushed: a few conflicts at most per record,
   * a double admission per check-in. Bounded by the records sent, so a push of one scan takes
   * an answer of about 70 KB, never 32 MB.
   */
  pushAnswerBaseBytes: 64 * 1024,
  pushAnswerBytesPerRecord: 4 * 1024,
  /** A venue's answer: 64 laptops of a few hundred bytes each. */
  venueAnswerBytes: 64 * 1024,
  /** What is read of a refusal, to tell plain HTTP refused from a role refused. */
  refusalBytes: 64 * 1024,
  connectMs: 5000,
  sameOriginRedirects: 3,
};

export interface UpstreamOptions {
  /** 64 lowercase hex digits: the upstream's certificate or its authority; none: the system's trust. */
  fingerprint?: string | null;
  /** PEM of the pinned authority, when kept with the sync. */
  authority?: string | null;
  /** Set for a sync already followed: a certificate that no longer matches its pin has changed. */
  followed?: boolean;
  /** Aborts whatever is in flight (a server shutting down, or an unfollow, does not wait on the network). */
  stop?: AbortSignal;
  /** Called once a request has waited `timing.silentMs` with no answer. */
  onSilent?: () => void;
  timing?: Partial<UpstreamTiming>;
}

/** Speaks to one upstream Doorlist with one of its API keys. The key goes in headers only. */
export class Upstream {
  private readonly base: URL;
  private readonly timing: UpstreamTiming;
  private verifiedAuthority: string | null = null;
  private shown: string | null = null;

  constructor(
    url: string,
    private readonly key: string,
    private readonly options: UpstreamOptions = {},
  ) {
    this.base = new URL(url.replace(/\/+$/, ''));
    this.timing = { ...DEFAULT_TIMING, ...options.timing };
  }

  /** PEM of the pinned authority the last connection verified against (to keep with the sync); null otherwise. */
  get authority(): string | null {
    return this.verifiedAuthority;
  }

  /** The events this key sees upstream (one page, at most 1,000), and the fingerprint its certificate showed. */
  async events(): Promise<{ fingerprint: string | null; events: z.infer<typeof UpstreamEventList>['results'] }> {
    return this.exchange({ method: 'GET', path: '/events?page_size=1000', notFound: 'url' }, async (res) => {
      const parsed = UpstreamEventList.safeParse(await readJson(res));
      if (!parsed.success) throw new UpstreamError('error', MSG.syncNotDoorlist);
      return { fingerprint: this.shown, events: parsed.data.results };
    });
  }

  /**
   * Downloads the event's changes since `since` (whole without it) to `file`; answers the
   * upstream's cursor. `eventUid`: the followed event's, which the file must be about.
   */
  async pull(remoteEventId: number, since: string | null, file: string, eventUid: string | null = null): Promise<string> {
    const query = since ? `?since=${encodeURIComponent(since)}` : '';
    return this.exchange({ method: 'GET', path: `/events/${remoteEventId}/sync/changes${query}` }, async (res) => {
      const cursor = parseCursor(res.headers[CURSOR_HEADER]);
      await download(res, fs.createWriteStream(file, { mode: 0o600 }), eventUid);
      return cursor;
    });
  }

  /** Sends a file of this laptop's changes (`records` of them); answers the findings of the upstream's merge. */
  async push(remoteEventId: number, file: string, records: number): Promise<z.infer<typeof UpstreamPushAnswer>> {
    const { size } = await fs.promises.stat(file);
    const request = {
      method: 'POST',
      path: `/events/${remoteEventId}/sync/changes`,
      headers: { 'content-type': EVENT_FILE_MEDIA_TYPE, 'content-length': String(size) },
      body: file,
    };
    const limit = Math.min(UPSTREAM_LIMITS.jsonBytes, UPSTREAM_LIMITS.pushAnswerBaseBytes + records * UPSTREAM_LIMITS.pushAnswerBytesPerRecord);
    return this.exchange(request, async (res) => {
      const parsed = UpstreamPushAnswer.safeParse(await readJson(res, limit, new UpstreamError('error', MSG.syncPushAnswerTooLarge)));
      if (!parsed.success) throw new UpstreamError('error', MSG.syncNotDoorlist);
      return parsed.data;
    });
  }

  /** Asks the upstream's authority to sign this laptop's certificate request (PEM) for the followed event's venue. */
  async certificate(remoteEventId: number, request: string): Promise<z.infer<typeof IssuedCertificate>> {
    const body = JSON.stringify({ certificate_request: request });
    const call = { method: 'POST', path: `/events/${remoteEventId}/sync/certificate`, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }, json: body };
    return this.exchange(call, async (res) => {
      const parsed = IssuedCertificate.safeParse(await readJson(res, UPSTREAM_LIMITS.refusalBytes));
      if (!parsed.success) throw new UpstreamError('error', MSG.syncNotDoorlist);
      return parsed.data;
    });
  }

  /** Tells the laptop who this one is for the event; answers what it knows of the venue (issue 47), bounded and checked. */
  async venue(remoteEventId: number, hello: VenueHello): Promise<VenueAnswer> {
    const body = JSON.stringify(hello);
    const request = { method: 'POST', path: `/events/${remoteEventId}/sync/venue`, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }, json: body };
    return this.exchange(request, async (res) => {
      const parsed = VenueAnswer.safeParse(await readJson(res, UPSTREAM_LIMITS.venueAnswerBytes));
      if (!parsed.success) throw new UpstreamError('error', MSG.syncNotDoorlist);
      return parsed.data;
    });
  }

  /**
   * One request and the reading of its answer, on one clock (deadline, minimum rate,
   * silence). Same-origin redirects are followed a few times; others are refused.
   */
  private async exchange<T>(
    request: { method: string; path: string; headers?: Record<string, string>; body?: string; json?: string; notFound?: UpstreamField },
    read: (res: http.IncomingMessage) => Promise<T>,
  ): Promise<T> {
    const clock = new ExchangeClock(this.timing, { stop: this.options.stop, onSilent: this.options.onSilent });
    let res: http.IncomingMessage | undefined;
    try {
      let target = new URL(this.base.href + request.path);
      for (let hop = 0; ; hop++) {
        res = await this.send(target, request, clock);
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.destroy();
          const next = new URL(res.headers.location, target);
          if (next.origin !== this.base.origin || hop >= UPSTREAM_LIMITS.sameOriginRedirects) throw new UpstreamError('error', MSG.syncRedirected);
          target = next;
          continue;
        }
        if (status < 200 || status >= 300) throw await refusal(res, request.notFound ?? 'event_id');
        return await read(res);
      }
    } catch (err) {
      const explained = clock.explain(err);
      throw explained instanceof UpstreamError || clock.stopped ? explained : networkError(explained);
    } finally {
      clock.end();
      // An answer refused before it was read whole lets its connection go.
      res?.destroy();
    }
  }

  private async send(target: URL, request: { method: string; headers?: Record<string, string>; body?: string; json?: string }, clock: ExchangeClock): Promise<http.IncomingMessage> {
    const socket = await this.connect(target, clock.signal);
    return new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request({
        method: request.method,
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        headers: { ...request.headers, authorization: `Token ${this.key}`, host: target.host, accept: 'application/json, */*' },
        createConnection: () => socket,
        signal: clock.signal,
      });
      // Every byte from the upstream counts, headers included; once the answer has begun, it is due at the minimum rate.
      req.once('socket', (s) =>
        s.on('data', (chunk: Buffer) => {
          clock.due(true);
          clock.progress(chunk.length);
        }),
      );
      req.once('response', resolve);
      req.on('error', reject);
      if (request.body === undefined) return void req.end(request.json);
      // A body going up is due at the minimum rate too; then the upstream works (idle and deadline bound it).
      clock.due(true);
      req.once('finish', () => clock.due(false));
      pipeline(fs.createReadStream(request.body), counted(clock), req).catch(reject);
    });
  }

  /** A connection the request may use: over HTTPS only once its certificate is accepted. */
  private async connect(target: URL, signal: AbortSignal): Promise<net.Socket> {
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const secure = target.protocol === 'https:';
    const port = Number(target.port || (secure ? 443 : 80));
    if (secure) {
      const pinned = await connectPinned({
        host,
        port,
        pin: this.options.fingerprint,
        authority: this.verifiedAuthority ?? this.options.authority,
        followed: this.options.followed,
        connectMs: UPSTREAM_LIMITS.connectMs,
        signal,
      });
      this.verifiedAuthority = pinned.authority;
      this.shown = pinned.shown;
      return pinned.socket;
    }
    const socket = await connectWithin(net.connect({ host, port }), 'connect', UPSTREAM_LIMITS.connectMs, signal);
    this.shown = null;
    return socket;
  }
}

/** Counts a body's bytes as they go up, on the exchange's clock. */
function counted(clock: ExchangeClock): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      clock.progress(chunk.length);
      done(null, chunk);
    },
  });
}

/** A refused request, named by what the user would correct; the body is read only to tell a plain-HTTP refusal. */
async function refusal(res: http.IncomingMessage, notFound: UpstreamField): Promise<UpstreamError> {
  const status = res.statusCode ?? 0;
  if (status === 401) return new UpstreamError('error', MSG.syncKeyRefused, 'key');
  if (status === 403) {
    const detail = await readJson(res, UPSTREAM_LIMITS.refusalBytes).then(
      (body) => (body as { detail?: unknown })?.detail,
      () => undefined,
    );
    if (typeof detail === 'string' && isPlainHttpRefusal(detail)) return new UpstreamError('error', MSG.syncPlainHttpRefused, 'url');
    return new UpstreamError('error', MSG.syncRoleRefused, 'key');
  }
  res.destroy();
  if (status === 404) return new UpstreamError('error', notFound === 'url' ? MSG.syncNotDoorlist : MSG.syncEventNotFound, notFound);
  if (status >= 500 || status === 429) return new UpstreamError('offline', MSG.syncUpstreamAnswered(status));
  return new UpstreamError('error', MSG.syncUpstreamAnswered(status));
}

/** How a Doorlist sharing the LAN refuses an API call over plain HTTP (server/lan.ts). */
function isPlainHttpRefusal(detail: string): boolean {
  return detail === MSG.plainHttpNoHttps || detail.startsWith(MSG.plainHttpRefused(''));
}

/** The answer's cursor in stored form; anything else refuses the answer before it is used. */
function parseCursor(value: string | string[] | undefined): string {
  const text = typeof value === 'string' ? value.trim() : '';
  const instant = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(text) ? storedInstant(text) : null;
  if (instant === null) throw new UpstreamError('error', MSG.syncBadCursor);
  return instant;
}

/** Fails past `limit` bytes. */
function bounded(limit: number, refusal = tooLarge(limit)): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > limit) done(refusal);
      else done(null, chunk);
    },
  });
}

function tooLarge(limit: number): UpstreamError {
  return new UpstreamError('error', MSG.syncAnswerTooLarge(Math.round(limit / 2 ** 20)));
}

/** An answer that says it is larger than `limit` is refused before it is read. */
function refuseDeclaredSize(res: http.IncomingMessage, limit: number, refusal = tooLarge(limit)): void {
  if (Number(res.headers['content-length'] ?? 0) <= limit) return;
  res.destroy();
  throw refusal;
}

/** To `out`, stopped at the first byte that no event file of the followed event holds (pull-guard.ts). */
async function download(res: http.IncomingMessage, out: fs.WriteStream, eventUid: string | null): Promise<void> {
  try {
    refuseDeclaredSize(res, UPSTREAM_LIMITS.fileBytes);
    await pipeline(res, bounded(UPSTREAM_LIMITS.fileBytes), pullGuard(eventUid), out);
  } catch (err) {
    out.destroy();
    // Writing here failed: this laptop's disk, not the upstream.
    if ((err as NodeJS.ErrnoException).code === 'ENOSPC') throw new UpstreamError('error', MSG.syncDiskFull);
    throw err;
  }
}

/** Read whole up to `limit` bytes (refused with `refusal` past it: as declared, or as soon as more arrives). */
async function readJson(res: http.IncomingMessage, limit = UPSTREAM_LIMITS.jsonBytes, refusal = tooLarge(limit)): Promise<unknown> {
  refuseDeclaredSize(res, limit, refusal);
  const chunks: Buffer[] = [];
  const collect = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  await pipeline(res, bounded(limit, refusal), collect);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new UpstreamError('error', MSG.syncNotDoorlist);
  }
}

const TLS_CODE = /^(ERR_SSL_|ERR_TLS_|EPROTO$)/;

/** A network failure, named by its cause (refused, no such host, not HTTPS), never by the request it carried. */
function networkError(err: unknown): UpstreamError {
  const e = err as { code?: string; name?: string };
  const code = e?.code ?? '';
  if (TLS_CODE.test(code)) return new UpstreamError('error', MSG.syncNotHttps);
  if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_')) return new UpstreamError('error', MSG.syncNotDoorlist);
  const reason = code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'no such host' : code === 'ECONNREFUSED' ? 'ECONNREFUSED' : code || 'no connection';
  return new UpstreamError('offline', MSG.syncUnreachable(reason));
}
