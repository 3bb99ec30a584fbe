import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { z } from '../schemas/zod';
import { MSG } from '../../core/messages';
import { ValidationError } from '../../core/errors';
import { GroupRecord } from './tables';

/**
 * The event file: gzip-compressed NDJSON, written and read as a stream.
 *   line 1      header  {"format":"doorlist-event","version":1,"station",...,"counts",...}
 *   lines 2..n  records {"table":"guests","record":{...}}  (the event first, parents first)
 *   last line   trailer {"trailer":{"records":n,"sha256":"..."}}
 * The sha256 covers every byte before the trailer (header and records, each with its
 * newline), so the checksum travels inside the one file and is checked before importing.
 */
export const EVENT_FILE_FORMAT = 'doorlist-event';
export const EVENT_FILE_VERSION = 1;
export const EVENT_FILE_MEDIA_TYPE = 'application/vnd.doorlist.event+gzip';
export const EVENT_FILE_EXTENSION = '.doorlist.gz';

export const EventFileHeader = z.object({
  format: z.literal(EVENT_FILE_FORMAT),
  version: z.number().int().min(1),
  station: z.string(),
  exported_at: z.string(),
  generator: z.string().optional(),
  event: z.object({ uid: z.string(), name: z.string() }),
  /** The event's group (uid, name, type, contact fields), so a laptop without it can make it. */
  group: GroupRecord.optional(),
  /** A delta: only what changed at or after this time. */
  since: z.string().optional(),
  tables: z.array(z.string()),
  counts: z.record(z.string(), z.number().int().min(0)),
  checksum: z.object({ algorithm: z.literal('sha256'), location: z.literal('trailer'), covers: z.string() }),
});
export type EventFileHeader = z.infer<typeof EventFileHeader>;

const Trailer = z.object({ trailer: z.object({ records: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) }) });

export const CHECKSUM_COVERS = 'every line before the trailer, this header included, each with its newline';

/** A file that cannot be imported: 400 `{detail}` with what the user reads. */
export class EventFileError extends ValidationError {
  constructor(message: string) {
    super({ detail: message });
  }
}

/** Streams an event file into `out`, compressing as it goes and honouring backpressure. */
export class EventFileWriter {
  // Level 1: a third of the time of the default for a file about 7% larger.
  private readonly gzip = zlib.createGzip({ level: 1 });
  private readonly hash: Hash = createHash('sha256');
  private recordCount = 0;
  /** Settles when `out` has the whole file; rejects at once when either stream fails (a full disk). */
  private readonly done: Promise<void>;

  constructor(out: Writable) {
    this.done = pipeline(this.gzip, out);
    // Seen by the next write or by finish(); never left unhandled meanwhile.
    this.done.catch(() => undefined);
  }

  async header(header: Omit<z.input<typeof EventFileHeader>, 'format' | 'version' | 'checksum'>): Promise<void> {
    const full: z.input<typeof EventFileHeader> = {
      format: EVENT_FILE_FORMAT,
      version: EVENT_FILE_VERSION,
      ...header,
      checksum: { algorithm: 'sha256', location: 'trailer', covers: CHECKSUM_COVERS },
    };
    await this.write(JSON.stringify(full) + '\n', true);
  }

  async records(table: string, records: unknown[]): Promise<void> {
    let chunk = '';
    for (const record of records) chunk += JSON.stringify({ table, record }) + '\n';
    this.recordCount += records.length;
    await this.write(chunk, true);
  }

  /** Lines already in the record form `{"table":...,"record":{...}}`. */
  async lines(lines: string[]): Promise<void> {
    if (lines.length === 0) return;
    this.recordCount += lines.length;
    await this.write(lines.join('\n') + '\n', true);
  }

  async finish(): Promise<void> {
    const trailer = { trailer: { records: this.recordCount, sha256: this.hash.digest('hex') } };
    await this.write(JSON.stringify(trailer) + '\n', false);
    this.gzip.end();
    await this.done;
  }

  private async write(text: string, hashed: boolean): Promise<void> {
    if (hashed) this.hash.update(text, 'utf8');
    if (this.gzip.destroyed) await this.done;
    // A failed pipeline never drains: its error ends the wait instead.
    if (!this.gzip.write(text)) await Promise.race([once(this.gzip, 'drain'), this.done]);
  }
}

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);
const NEWLINE = 0x0a;

/**
 * What reading a file may cost, whatever it holds. No Doorlist writes a line (a record)
 * near 1 MB; a real event file unpacks to about ten times its size, so a file that unpacks
 * to far more is a gzip bomb, refused as soon as it passes the bound. 1 GB unpacked is an
 * event of about a million guests.
 */
export const EVENT_FILE_LIMITS = {
  lineBytes: 1 << 20,
  inflatedBytes: 1024 ** 3,
  inflatedPerCompressedByte: 64,
  /** Room for a small file's header and first records whatever its ratio. */
  inflatedSlackBytes: 16 << 20,
};

/**
 * Newlines in `bytes`: found with indexOf (memchr) while lines are as long as an event
 * file's; a chunk dense with newlines (a file of empty lines) is finished with a plain loop,
 * so no file costs more than one pass over its bytes.
 */
function countNewlines(bytes: Buffer): number {
  const dense = bytes.length >> 5;
  let n = 0;
  let i = bytes.indexOf(NEWLINE);
  for (; i >= 0 && n < dense; i = bytes.indexOf(NEWLINE, i + 1)) n++;
  if (i < 0) return n;
  for (; i < bytes.length; i++) if (bytes[i] === NEWLINE) n++;
  return n;
}

// Large reads and inflate chunks: a 70 MB event inflates in a few hundred calls, not thousands.
const CHUNK = 1 << 20;
const SMALL_CHUNK = 64 * 1024;

/** The decompressed bytes of a file, stopped past the inflated bound; gzip errors (truncated, CRC) surface from the loop. */
async function* inflated(file: string): AsyncGenerator<Buffer> {
  const { size } = await fs.promises.stat(file);
  const limit = Math.min(EVENT_FILE_LIMITS.inflatedBytes, size * EVENT_FILE_LIMITS.inflatedPerCompressedByte + EVENT_FILE_LIMITS.inflatedSlackBytes);
  // A small file (a follower's push of a few scans) gets buffers of about its size: a megabyte
  // for each of its three passes made garbage collection half of a push's CPU.
  const chunk = Math.min(CHUNK, Math.max(SMALL_CHUNK, size * 8));
  const gunzip = zlib.createGunzip({ chunkSize: chunk });
  const source = fs.createReadStream(file, { highWaterMark: Math.min(CHUNK, Math.max(SMALL_CHUNK, size)) });
  source.on('error', (err) => gunzip.destroy(err)).pipe(gunzip);
  let total = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > limit) throw new EventFileError(MSG.eventFileInflatesTooMuch(Math.round(limit / 2 ** 20)));
      yield chunk;
    }
  } finally {
    source.destroy();
    gunzip.destroy();
  }
}

function lineTooLong(): EventFileError {
  return new EventFileError(MSG.eventFileLineTooLong(EVENT_FILE_LIMITS.lineBytes / 2 ** 20));
}

interface Line {
  line: string;
  /** Its length in the file, newline included. */
  bytes: number;
}

/**
 * The decompressed lines of a file, a chunk of whole lines at a time: one await per
 * megabyte of inflated file, not per line. Each chunk's lines are cut as they are taken.
 */
async function* lineChunks(file: string): AsyncGenerator<Iterable<Line>> {
  let rest = Buffer.alloc(0);
  for await (const chunk of inflated(file)) {
    const bytes = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    const whole = bytes.lastIndexOf(NEWLINE) + 1;
    rest = Buffer.from(bytes.subarray(whole));
    if (rest.length > EVENT_FILE_LIMITS.lineBytes) throw lineTooLong();
    yield linesIn(bytes, whole);
  }
  if (rest.length > 0) yield [{ line: rest.toString('utf8'), bytes: rest.length }];
}

/** The lines of `bytes` before `end`, where a line ends. */
function* linesIn(bytes: Buffer, end: number): Generator<Line> {
  for (let start = 0; start < end; ) {
    const stop = bytes.indexOf(NEWLINE, start);
    if (stop - start > EVENT_FILE_LIMITS.lineBytes) throw lineTooLong();
    yield { line: bytes.toString('utf8', start, stop), bytes: stop - start + 1 };
    start = stop + 1;
  }
}

function explain(err: unknown): EventFileError {
  if (err instanceof EventFileError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'Z_BUF_ERROR' || code === 'Z_DATA_ERROR') return new EventFileError(MSG.eventFileDamaged);
  throw err;
}

function parseHeader(line: string | undefined): EventFileHeader {
  let value: unknown;
  try {
    value = JSON.parse(line ?? '');
  } catch {
    throw new EventFileError(MSG.eventFileForeign);
  }
  const format = (value as { format?: unknown })?.format;
  const version = (value as { version?: unknown })?.version;
  if (format !== EVENT_FILE_FORMAT) throw new EventFileError(MSG.eventFileForeign);
  if (typeof version === 'number' && Number.isInteger(version) && version > EVENT_FILE_VERSION) {
    throw new EventFileError(MSG.eventFileNewer(version, EVENT_FILE_VERSION));
  }
  const parsed = EventFileHeader.safeParse(value);
  if (!parsed.success) throw new EventFileError(MSG.eventFileForeign);
  return parsed.data;
}

/**
 * First pass over a file, touching no database: is it gzip, ours, a version we read, whole
 * (gzip CRC and length) and unaltered (sha256 of the trailer)? Returns the header.
 */
export async function verifyEventFile(file: string): Promise<EventFileHeader> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const magic = Buffer.alloc(2);
    const { bytesRead } = await handle.read(magic, 0, 2, 0);
    if (bytesRead < 2 || !magic.equals(GZIP_MAGIC)) throw new EventFileError(MSG.eventFileForeign);
  } finally {
    await handle.close();
  }
  // The bytes are hashed as they come, all but the last line seen so far: when the stream
  // ends, that line is the trailer and everything before it has been hashed once.
  const hash = createHash('sha256');
  let header: EventFileHeader | undefined;
  let head = Buffer.alloc(0);
  let held = Buffer.alloc(0);
  let newlines = 0;
  try {
    for await (const chunk of inflated(file)) {
      let bytes: Buffer;
      if (header === undefined) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf(NEWLINE);
        if (end < 0 && head.length <= EVENT_FILE_LIMITS.lineBytes) continue;
        header = parseHeader(head.subarray(0, end < 0 ? head.length : end).toString('utf8'));
        bytes = head;
      } else bytes = held.length > 0 ? Buffer.concat([held, chunk]) : chunk;
      // The last newline that is not the final byte ends every line but the last.
      const cut = bytes.lastIndexOf(NEWLINE, bytes.length - 2) + 1;
      if (cut > 0) {
        const done = bytes.subarray(0, cut);
        hash.update(done);
        newlines += countNewlines(done);
      }
      held = Buffer.from(bytes.subarray(cut));
      // Only the last line is held; past the bound it is no line of ours (a bomb's one long line).
      if (held.length > EVENT_FILE_LIMITS.lineBytes) throw lineTooLong();
    }
  } catch (err) {
    throw explain(err);
  }
  if (header === undefined && head.length > 0) header = parseHeader(head.toString('utf8'));
  const previous = held.toString('utf8').replace(/\n$/, '');
  const records = newlines - 1;
  if (header === undefined) throw new EventFileError(MSG.eventFileForeign);
  let trailer: z.infer<typeof Trailer> | undefined;
  try {
    trailer = Trailer.parse(JSON.parse(previous));
  } catch {
    throw new EventFileError(MSG.eventFileDamaged);
  }
  if (trailer.trailer.sha256 !== hash.digest('hex') || trailer.trailer.records !== records) throw new EventFileError(MSG.eventFileDamaged);
  return header;
}

export interface EventFileRecord {
  table: string;
  record: unknown;
  /** Its line's length in the file. */
  bytes: number;
}

/**
 * Second pass: the records of a verified file, in order, in chunks (a megabyte of inflated
 * file each). A chunk's records are parsed as they are taken, so its reader decides how much
 * work goes between two turns of the event loop.
 */
export async function* readEventRecords(file: string): AsyncGenerator<Iterable<EventFileRecord>> {
  const reading: Reading = { header: true, ended: false };
  try {
    for await (const lines of lineChunks(file)) {
      if (reading.ended) return;
      yield recordsIn(lines, reading);
    }
  } catch (err) {
    // Inflating and cutting lines fail here; a chunk's records fail in its reader's loop,
    // each with an EventFileError of its own.
    throw explain(err);
  }
}

/** Where a file's reading stands, across its chunks: a header may fill a whole chunk. */
interface Reading {
  header: boolean;
  ended: boolean;
}

function* recordsIn(lines: Iterable<Line>, reading: Reading): Generator<EventFileRecord> {
  for (const { line, bytes } of lines) {
    if (reading.ended) return;
    if (reading.header) {
      reading.header = false;
      continue;
    }
    let value: { table?: unknown; record?: unknown; trailer?: unknown };
    try {
      value = JSON.parse(line);
    } catch {
      throw new EventFileError(MSG.eventFileInvalid('a line is not JSON'));
    }
    if (value.trailer !== undefined) {
      reading.ended = true;
      return;
    }
    if (typeof value.table !== 'string' || typeof value.record !== 'object' || value.record === null) {
      throw new EventFileError(MSG.eventFileInvalid('a line is not a record'));
    }
    yield { table: value.table, record: value.record, bytes };
  }
}
