import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { HttpError } from './errors';
import { MSG } from '../../core/messages';

/** How slowly an upload's body may arrive (config: DOORLIST_UPLOAD_*). */
export interface UploadPace {
  /** No byte for this long cuts the upload. */
  idleMs: number;
  /** Once `graceMs` of the upload have passed, an average below this cuts it (0: no minimum). */
  minBytesPerSecond: number;
  graceMs: number;
}

export type SlowUpload = { reason: 'idle' | 'slow'; error: HttpError };

/**
 * Watches an upload's body arrive and calls `onSlow` once if the client stalls or trickles:
 * a key trickling a byte a second would otherwise hold an upload slot for ever. Read through
 * the socket's byte count, so the body's reader is untouched; time the server itself is behind
 * (bytes buffered that the handler has not read yet) counts for neither bound. Returns stop().
 */
export function watchUploadPace(req: Request, pace: UploadPace, onSlow: (slow: SlowUpload) => void, now: () => number = Date.now): () => void {
  const socket = req.socket;
  const firstBytes = socket.bytesRead;
  let lastBytes = firstBytes;
  let lastProgress = now();
  let previousTick = lastProgress;
  let activeMs = 0;
  const timer = setInterval(tick, Math.max(5, Math.min(pace.idleMs, pace.graceMs) / 4));
  timer.unref();
  const stop = () => clearInterval(timer);
  req.once('end', stop);
  req.once('close', stop);

  function tick(): void {
    const t = now();
    const elapsed = t - previousTick;
    previousTick = t;
    if (req.complete || socket.destroyed) return stop();
    const bytes = socket.bytesRead;
    if (req.readableLength > 0) {
      // The handler has not read what came: the client is not the slow one now.
      lastProgress = t;
      lastBytes = bytes;
      return;
    }
    activeMs += elapsed;
    if (bytes > lastBytes) {
      lastBytes = bytes;
      lastProgress = t;
    } else if (t - lastProgress >= pace.idleMs) {
      return trip('idle');
    }
    if (pace.minBytesPerSecond > 0 && activeMs >= pace.graceMs && ((bytes - firstBytes) * 1000) / activeMs < pace.minBytesPerSecond) trip('slow');
  }

  function trip(reason: SlowUpload['reason']): void {
    stop();
    const detail = reason === 'idle' ? MSG.uploadIdle(Number((pace.idleMs / 1000).toFixed(1))) : MSG.uploadTooSlow(pace.minBytesPerSecond);
    onSlow({ reason, error: new HttpError(408, { detail }) });
  }

  return stop;
}

/**
 * Refuses a body whose first bytes are not `magic` before anything of it is spooled (a 400,
 * the connection closed after it, so the rest is never read). The bytes read are put back.
 */
export async function expectLeadingBytes(req: Request, res: Response, magic: Buffer, detail: string): Promise<void> {
  const head = await readHead(req, magic.length);
  if (head.length >= magic.length && head.subarray(0, magic.length).equals(magic)) return;
  res.setHeader('Connection', 'close');
  throw new HttpError(400, { detail });
}

/** At least `n` bytes of the stream (fewer at its end), unshifted back onto it. */
async function readHead(stream: Readable, n: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  while (size < n) {
    const chunk = stream.read() as Buffer | null;
    if (chunk !== null) {
      chunks.push(chunk);
      size += chunk.length;
      continue;
    }
    if (stream.readableEnded || stream.destroyed) break;
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        stream.off('readable', done).off('end', done).off('close', done).off('error', failed);
        resolve();
      };
      const failed = (err: Error) => {
        done();
        reject(err);
      };
      stream.on('readable', done).on('end', done).on('close', done).on('error', failed);
    });
  }
  const head = Buffer.concat(chunks);
  if (head.length > 0) stream.unshift(head);
  return head;
}

/** The first two bytes of every gzip stream, and so of every event file. */
export const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);
