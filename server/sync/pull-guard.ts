import { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { MSG } from '../../core/messages';
import { EVENT_FILE_FORMAT, EVENT_FILE_LIMITS } from '../event-file';
import { UpstreamError } from './upstream-error';

/**
 * Watches a pull's event file as it downloads and stops it at the first byte past what an
 * event file of the followed event can be, so a hostile upstream's endless answer costs this
 * laptop no more than an event would: gzip from the first bytes, a Doorlist header (of the
 * followed event) within its first line, lines within the format's bound, no more lines than
 * the header declares records (plus header and trailer), nothing unpacked past the format's
 * bound (an event of about a million guests), and nothing after the trailer but the gzip
 * footer. The file is verified whole again before it is used (verifyEventFile).
 */

const GZIP_MAGIC = [0x1f, 0x8b];
const NEWLINE = 0x0a;
/** What may still arrive, compressed, once the trailer line has started: its few bytes and the gzip footer. */
const AFTER_LAST_RECORD_BYTES = 64 * 1024;
/** A trailer is about a hundred bytes. */
const TRAILER_BYTES = 4096;

export function pullGuard(expectedUid: string | null): Transform {
  const gunzip = zlib.createGunzip();
  let compressed = 0;
  let unpacked = 0;
  let head: Buffer[] | null = [];
  let headBytes = 0;
  let lineBytes = 0;
  let newlines = 0;
  /** Records the header declares, once it has been read. */
  let declared: number | undefined;
  /** Compressed bytes since the last record line ended. */
  let afterRecords: number | undefined;
  let failure: UpstreamError | undefined;
  /** The chunk being inflated: answered once gunzip took it, or failed. */
  let pending: ((err?: Error | null, chunk?: Buffer) => void) | undefined;
  const settle = (chunk: Buffer | undefined) => {
    const done = pending;
    pending = undefined;
    done?.(failure ?? null, failure ? undefined : chunk);
  };

  const fail = (message: string) => {
    failure ??= new UpstreamError('error', message);
  };

  const readHeader = (line: Buffer) => {
    let header: { format?: unknown; event?: { uid?: unknown }; counts?: unknown } | undefined;
    try {
      header = JSON.parse(line.toString('utf8'));
    } catch {
      return fail(MSG.syncNotDoorlist);
    }
    if (header?.format !== EVENT_FILE_FORMAT || typeof header.counts !== 'object' || header.counts === null) return fail(MSG.syncNotDoorlist);
    if (expectedUid !== null && header.event?.uid !== expectedUid) return fail(MSG.syncOtherEvent);
    const counts = Object.values(header.counts as Record<string, unknown>);
    if (!counts.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) return fail(MSG.syncNotDoorlist);
    declared = counts.reduce<number>((sum, n) => sum + (n as number), 0);
  };

  gunzip.on('data', (chunk: Buffer) => {
    unpacked += chunk.length;
    if (unpacked > EVENT_FILE_LIMITS.inflatedBytes) return fail(MSG.syncAnswerTooLarge(Math.round(EVENT_FILE_LIMITS.inflatedBytes / 2 ** 20)));
    for (let start = 0; start < chunk.length && !failure; ) {
      const stop = chunk.indexOf(NEWLINE, start);
      const end = stop < 0 ? chunk.length : stop;
      lineBytes += end - start;
      if (head) {
        head.push(chunk.subarray(start, end));
        headBytes += end - start;
      }
      const limit = declared !== undefined && newlines >= declared + 1 ? TRAILER_BYTES : EVENT_FILE_LIMITS.lineBytes;
      if (lineBytes > limit) return fail(MSG.syncNotDoorlist);
      if (stop < 0) break;
      newlines++;
      lineBytes = 0;
      if (head) {
        readHeader(Buffer.concat(head, headBytes));
        head = null;
      }
      if (declared !== undefined && newlines > declared + 2) return fail(MSG.syncNotDoorlist);
      if (declared !== undefined && newlines === declared + 1) afterRecords = 0;
      start = stop + 1;
    }
  });
  gunzip.on('error', () => {
    fail(MSG.syncNotDoorlist);
    settle(undefined);
  });

  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (compressed < GZIP_MAGIC.length) {
        for (let i = 0; i < chunk.length && compressed + i < GZIP_MAGIC.length; i++) if (chunk[i] !== GZIP_MAGIC[compressed + i]) fail(MSG.syncNotDoorlist);
      }
      compressed += chunk.length;
      if (afterRecords !== undefined) {
        afterRecords += chunk.length;
        if (afterRecords > AFTER_LAST_RECORD_BYTES) fail(MSG.syncNotDoorlist);
      }
      if (failure) return done(failure);
      // Passed on once inflated and looked at: the download goes at the pace of the check.
      pending = done;
      gunzip.write(chunk, () => settle(chunk));
    },
    flush(done) {
      gunzip.end();
      done(failure ?? null);
    },
    destroy(err, done) {
      gunzip.destroy();
      done(err);
    },
  });
}
