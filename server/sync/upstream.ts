import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { MSG } from '../../core/messages';
import type { ImportResult } from '../event-file';
import { EVENT_FILE_MEDIA_TYPE } from '../event-file';

/** The upstream's clock at the moment its answer's snapshot was taken. */
export const CURSOR_HEADER = 'x-doorlist-cursor';
// A slow upstream must not hold a follower forever; the next cycle tries again.
const TIMEOUT_MS = 20_000;

/**
 * Why a cycle failed, as the door reads it: `offline` while the upstream cannot be reached
 * (no network, refused, timed out, 5xx), `error` when it answered no (key revoked, event gone).
 */
export class UpstreamError extends Error {
  constructor(
    readonly state: 'offline' | 'error',
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Speaks to one upstream Doorlist with one of its API keys. The key goes in headers only. */
export class Upstream {
  private readonly base: string;

  /** `stop` aborts whatever is in flight (a server shutting down, or an unfollow, does not wait on the network). */
  constructor(
    url: string,
    private readonly key: string,
    private readonly stop?: AbortSignal,
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  /** Downloads the event's changes since `since` (whole without it) to `file`; answers the upstream's cursor. */
  async pull(remoteEventId: number, since: string | null, file: string): Promise<string> {
    const query = since ? `?since=${encodeURIComponent(since)}` : '';
    const res = await this.fetch(`/events/${remoteEventId}/sync/changes${query}`, { method: 'GET' });
    const cursor = res.headers.get(CURSOR_HEADER);
    if (!res.body || !cursor) throw new UpstreamError('error', MSG.syncUpstreamAnswered(res.status, 'not a Doorlist sync answer'));
    try {
      await pipeline(Readable.fromWeb(res.body as WebReadableStream), fs.createWriteStream(file));
    } catch (err) {
      throw offline(err);
    }
    return cursor;
  }

  /** Sends a file of this laptop's changes; answers the upstream's merge result. */
  async push(remoteEventId: number, file: string): Promise<ImportResult> {
    const body = await fs.promises.readFile(file);
    const res = await this.fetch(`/events/${remoteEventId}/sync/changes`, {
      method: 'POST',
      headers: { 'content-type': EVENT_FILE_MEDIA_TYPE },
      body: new Uint8Array(body),
    });
    try {
      return (await res.json()) as ImportResult;
    } catch (err) {
      throw offline(err);
    }
  }

  private async fetch(path: string, init: RequestInit): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(this.base + path, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: `Token ${this.key}` },
        signal: this.stop ? AbortSignal.any([AbortSignal.timeout(TIMEOUT_MS), this.stop]) : AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw offline(err);
    }
    if (res.ok) return res;
    const detail = await res.text().then(detailOf, () => '');
    if (res.status >= 500) throw new UpstreamError('offline', MSG.syncUpstreamAnswered(res.status, detail), res.status);
    if (res.status === 401 || res.status === 403) throw new UpstreamError('error', MSG.syncKeyRefused, res.status);
    if (res.status === 404) throw new UpstreamError('error', MSG.syncEventNotFound, res.status);
    throw new UpstreamError('error', MSG.syncUpstreamAnswered(res.status, detail), res.status);
  }
}

function detailOf(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const detail = body.detail ?? body.details ?? text;
    return typeof detail === 'string' ? detail : JSON.stringify(detail);
  } catch {
    return text.slice(0, 200);
  }
}

/** A network failure, named by its cause (ECONNREFUSED, a timeout), never by the request it carried. */
function offline(err: unknown): UpstreamError {
  const e = err as { name?: string; code?: string; cause?: { code?: string; message?: string } };
  const reason = e?.name === 'TimeoutError' ? 'timed out' : (e?.cause?.code ?? e?.code ?? e?.cause?.message ?? 'no connection');
  return new UpstreamError('offline', MSG.syncUnreachable(String(reason)));
}
