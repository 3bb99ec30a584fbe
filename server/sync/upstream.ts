import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MSG } from '../../core/messages';
import { showFingerprint } from '../../core/fingerprint';
import { storedInstant } from '../../core/time';
import { EVENT_FILE_MEDIA_TYPE } from '../event-file';
import { UpstreamEventList, UpstreamPushAnswer } from '../schemas/sync';
import type { z } from '../schemas/zod';

/**
 * The one client of an upstream Doorlist. Everything an upstream answers is bounded and
 * nothing of it is repeated to the user or the log: errors are this laptop's own messages,
 * named by their real cause (unreachable, hung, certificate, key refused, plain HTTP refused).
 * HTTPS is checked here, before a byte of the request (and its key) is sent: a certificate the
 * system trusts, or one whose chain holds the pinned fingerprint; a pin, once given, is always
 * required.
 */

/** The upstream's clock at the moment its answer's snapshot was taken. */
export const CURSOR_HEADER = 'x-doorlist-cursor';

export const UPSTREAM_LIMITS = {
  /** An event file down (the same bound as an upload of one). */
  fileBytes: 500 * 1024 * 1024,
  /** A JSON answer (a push's findings, the events list). */
  jsonBytes: 32 * 1024 * 1024,
  /** What is read of a refusal, to tell plain HTTP refused from a role refused. */
  refusalBytes: 64 * 1024,
  connectMs: 5000,
  /** No answer for this long: the sync shows offline, while the request may still finish. */
  silentMs: 5000,
  /** No byte for this long: the request is given up. */
  idleMs: 30_000,
  sameOriginRedirects: 3,
};

export type UpstreamField = 'url' | 'key' | 'event_id' | 'fingerprint';

/**
 * Why talking to the upstream failed, as the door reads it: `offline` while it cannot be
 * reached (no network, refused, hung, 5xx), `error` when it answered no or answered wrong.
 * `field`: what the user would correct when following.
 */
export class UpstreamError extends Error {
  constructor(
    readonly state: 'offline' | 'error',
    message: string,
    readonly field: UpstreamField = 'url',
  ) {
    super(message);
  }
}

export interface UpstreamOptions {
  /** 64 lowercase hex digits the certificate chain must hold; none: the system's trust. */
  fingerprint?: string | null;
  /** Set for a sync already followed: a certificate that no longer matches its pin has changed. */
  followed?: boolean;
  /** Aborts whatever is in flight (a server shutting down, or an unfollow, does not wait on the network). */
  stop?: AbortSignal;
  /** Called once a request has waited UPSTREAM_LIMITS.silentMs with no answer. */
  onSilent?: () => void;
  idleMs?: number;
}

interface Answer {
  res: http.IncomingMessage;
  /** The fingerprint the chain showed (its top: the authority when presented), `AA:BB:...`; null over HTTP. */
  shown: string | null;
}

/** Speaks to one upstream Doorlist with one of its API keys. The key goes in headers only. */
export class Upstream {
  private readonly base: URL;

  constructor(
    url: string,
    private readonly key: string,
    private readonly options: UpstreamOptions = {},
  ) {
    this.base = new URL(url.replace(/\/+$/, ''));
  }

  /** The events this key sees upstream (one page, at most 1,000), and the fingerprint its certificate showed. */
  async events(): Promise<{ fingerprint: string | null; events: z.infer<typeof UpstreamEventList>['results'] }> {
    return this.exchange({ method: 'GET', path: '/events?page_size=1000', notFound: 'url' }, async ({ res, shown }, watch) => {
      const parsed = UpstreamEventList.safeParse(await readJson(res, watch));
      if (!parsed.success) throw new UpstreamError('error', MSG.syncNotDoorlist);
      return { fingerprint: shown, events: parsed.data.results };
    });
  }

  /** Downloads the event's changes since `since` (whole without it) to `file`; answers the upstream's cursor. */
  async pull(remoteEventId: number, since: string | null, file: string): Promise<string> {
    const query = since ? `?since=${encodeURIComponent(since)}` : '';
    return this.exchange({ method: 'GET', path: `/events/${remoteEventId}/sync/changes${query}` }, async ({ res }, watch) => {
      const cursor = parseCursor(res.headers[CURSOR_HEADER]);
      await download(res, fs.createWriteStream(file, { mode: 0o600 }), watch);
      return cursor;
    });
  }

  /** Sends a file of this laptop's changes; answers the findings of the upstream's merge. */
  async push(remoteEventId: number, file: string): Promise<z.infer<typeof UpstreamPushAnswer>> {
    const { size } = await fs.promises.stat(file);
    const request = {
      method: 'POST',
      path: `/events/${remoteEventId}/sync/changes`,
      headers: { 'content-type': EVENT_FILE_MEDIA_TYPE, 'content-length': String(size) },
      body: file,
    };
    return this.exchange(request, async ({ res }, watch) => {
      const parsed = UpstreamPushAnswer.safeParse(await readJson(res, watch));
      if (!parsed.success) throw new UpstreamError('error', MSG.syncNotDoorlist);
      return parsed.data;
    });
  }

  /**
   * One request and the reading of its answer, under the same clock: the sync shows offline
   * once nothing has come for silentMs, and the request is given up after idleMs of silence
   * (or when stopped). Same-origin redirects are followed a few times; others are refused.
   */
  private async exchange<T>(
    request: { method: string; path: string; headers?: Record<string, string>; body?: string; notFound?: UpstreamField },
    read: (answer: Answer, watch: Watch) => Promise<T>,
  ): Promise<T> {
    const watch = new Watch(this.options);
    let res: http.IncomingMessage | undefined;
    try {
      let target = new URL(this.base.href + request.path);
      for (let hop = 0; ; hop++) {
        const answer = await this.send(target, request, watch);
        res = answer.res;
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.destroy();
          const next = new URL(res.headers.location, target);
          if (next.origin !== this.base.origin || hop >= UPSTREAM_LIMITS.sameOriginRedirects) throw new UpstreamError('error', MSG.syncRedirected);
          target = next;
          continue;
        }
        if (status < 200 || status >= 300) throw await refusal(res, request.notFound ?? 'event_id', watch);
        return await read(answer, watch);
      }
    } catch (err) {
      throw watch.explain(err);
    } finally {
      watch.end();
      // An answer refused before it was read whole lets its connection go.
      res?.destroy();
    }
  }

  private async send(target: URL, request: { method: string; headers?: Record<string, string>; body?: string }, watch: Watch): Promise<Answer> {
    const { socket, shown } = await this.connect(target, watch.signal);
    return new Promise<Answer>((resolve, reject) => {
      const req = http.request({
        method: request.method,
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        headers: { ...request.headers, authorization: `Token ${this.key}`, host: target.host, accept: 'application/json, */*' },
        createConnection: () => socket,
        signal: watch.signal,
      });
      req.once('response', (res) => {
        watch.progress();
        resolve({ res, shown });
      });
      req.on('error', reject);
      if (request.body === undefined) req.end();
      else pipeline(fs.createReadStream(request.body), req).catch(reject);
    });
  }

  /** A connection the request may use: over HTTPS only once its certificate is accepted. */
  private connect(target: URL, signal: AbortSignal): Promise<{ socket: net.Socket; shown: string | null }> {
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const secure = target.protocol === 'https:';
    const port = Number(target.port || (secure ? 443 : 80));
    return new Promise((resolve, reject) => {
      const socket = secure
        ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] })
        : net.connect({ host, port });
      const fail = (err: unknown) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        socket.destroy();
        reject(err);
      };
      const onAbort = () => fail(signal.reason);
      const timer = setTimeout(() => fail(new UpstreamError('offline', MSG.syncUnreachable(`no connection within ${UPSTREAM_LIMITS.connectMs / 1000} s`))), UPSTREAM_LIMITS.connectMs);
      signal.addEventListener('abort', onAbort, { once: true });
      socket.once('error', fail);
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        socket.off('error', fail);
        if (!secure) return resolve({ socket, shown: null });
        const tlsSocket = socket as tls.TLSSocket;
        const chain = presentedChain(tlsSocket);
        const shown = showFingerprint(chain[chain.length - 1]);
        const problem = this.certificateProblem(tlsSocket, chain, shown);
        if (problem) fail(problem);
        else resolve({ socket, shown });
      });
    });
  }

  /** Why this chain is not to be trusted, or nothing: with a pin, only the pin counts. */
  private certificateProblem(socket: tls.TLSSocket, chain: string[], shown: string): UpstreamError | undefined {
    const pin = this.options.fingerprint;
    if (pin) {
      if (chain.includes(pin)) return undefined;
      return new UpstreamError('error', this.options.followed ? MSG.syncCertificateChanged(shown) : MSG.syncCertificateMismatch(shown), 'fingerprint');
    }
    if (socket.authorized) return undefined;
    return new UpstreamError('error', MSG.syncCertificateUntrusted(shown), 'fingerprint');
  }
}

/**
 * The request's clock: calls `onSilent` once after silentMs without progress, and aborts
 * after idleMs without progress; `signal` also carries the caller's stop.
 */
class Watch {
  private readonly idle = new AbortController();
  readonly signal: AbortSignal;
  private silentTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: UpstreamOptions) {
    this.signal = options.stop ? AbortSignal.any([options.stop, this.idle.signal]) : this.idle.signal;
    this.progress();
  }

  progress(): void {
    clearTimeout(this.silentTimer);
    clearTimeout(this.idleTimer);
    const { onSilent } = this.options;
    if (onSilent) this.silentTimer = setTimeout(onSilent, UPSTREAM_LIMITS.silentMs);
    const idleMs = this.options.idleMs ?? UPSTREAM_LIMITS.idleMs;
    this.idleTimer = setTimeout(() => this.idle.abort(new UpstreamError('offline', MSG.syncUnreachable(`no answer for ${idleMs / 1000} s`))), idleMs);
  }

  end(): void {
    clearTimeout(this.silentTimer);
    clearTimeout(this.idleTimer);
  }

  /** Any failure as an UpstreamError naming its cause; a stop stays what it was (the caller knows). */
  explain(err: unknown): unknown {
    if (err instanceof UpstreamError) return err;
    if (this.idle.signal.aborted) return this.idle.signal.reason;
    if (this.options.stop?.aborted) return err;
    return networkError(err);
  }
}

/** SHA-256 of each certificate the upstream presented, the leaf first (64 lowercase hex digits). */
function presentedChain(socket: tls.TLSSocket): string[] {
  const chain: string[] = [];
  let cert: tls.DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  while (cert?.raw) {
    const hex = crypto.createHash('sha256').update(cert.raw).digest('hex');
    if (chain.includes(hex)) break;
    chain.push(hex);
    cert = cert.issuerCertificate;
  }
  return chain;
}

/** A refused request, named by what the user would correct; the body is read only to tell a plain-HTTP refusal. */
async function refusal(res: http.IncomingMessage, notFound: UpstreamField, watch: Watch): Promise<UpstreamError> {
  const status = res.statusCode ?? 0;
  if (status === 401) return new UpstreamError('error', MSG.syncKeyRefused, 'key');
  if (status === 403) {
    const detail = await readJson(res, watch, UPSTREAM_LIMITS.refusalBytes).then(
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

/** Passes what comes as progress on the request's clock, and fails past `limit` bytes. */
function bounded(limit: number, watch: Watch): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      watch.progress();
      size += chunk.length;
      if (size > limit) done(tooLarge(limit));
      else done(null, chunk);
    },
  });
}

function tooLarge(limit: number): UpstreamError {
  return new UpstreamError('error', MSG.syncAnswerTooLarge(Math.round(limit / 2 ** 20)));
}

/** An answer that says it is larger than `limit` is refused before it is read. */
function refuseDeclaredSize(res: http.IncomingMessage, limit: number): void {
  if (Number(res.headers['content-length'] ?? 0) <= limit) return;
  res.destroy();
  throw tooLarge(limit);
}

async function download(res: http.IncomingMessage, out: fs.WriteStream, watch: Watch): Promise<void> {
  try {
    refuseDeclaredSize(res, UPSTREAM_LIMITS.fileBytes);
    await pipeline(res, bounded(UPSTREAM_LIMITS.fileBytes, watch), out);
  } catch (err) {
    out.destroy();
    // Writing here failed: this laptop's disk, not the upstream.
    if ((err as NodeJS.ErrnoException).code === 'ENOSPC') throw new UpstreamError('error', MSG.syncDiskFull);
    throw err;
  }
}

async function readJson(res: http.IncomingMessage, watch: Watch, limit = UPSTREAM_LIMITS.jsonBytes): Promise<unknown> {
  refuseDeclaredSize(res, limit);
  const chunks: Buffer[] = [];
  const collect = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  await pipeline(res, bounded(limit, watch), collect);
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
