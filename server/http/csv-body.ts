import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse, CsvError } from 'csv-parse';
import { HttpError, ValidationError } from './errors';
import { MSG } from '../../core/messages';

/** A CSV upload's body is refused past this many bytes (413). */
export const CSV_MAX_BYTES = 100 * 1024 * 1024;
/** One row may hold this many characters; a longer one makes the file unreadable. */
export const CSV_MAX_ROW_CHARS = 64 * 1024;

type RequestBody = Readable & { headers: Record<string, string | string[] | undefined> };

/**
 * The request body's CSV records as they arrive, never the whole file in memory: decoded by the
 * Content-Type's charset, split on the separator its header row uses. A body that is not CSV
 * throws the spec's 400 (413 past CSV_MAX_BYTES) while it is read.
 */
export async function csvRecords(req: RequestBody): Promise<AsyncIterable<string[]>> {
  const chunks = decodedChunks(req, CSV_MAX_BYTES);
  const head = await readHead(chunks);
  const parser = parse({ bom: true, relax_column_count: true, delimiter: sniffDelimiter(head), max_record_size: CSV_MAX_ROW_CHARS });
  // A failure on either side destroys the parser with that error, so the reader sees it.
  pipeline(Readable.from(prepend(head, chunks)), parser).catch(() => undefined);
  return unreadableAs400(parser);
}

/** The parser's records; a file it cannot read answers 400 with the parser's reason. */
async function* unreadableAs400(parser: AsyncIterable<string[]>): AsyncGenerator<string[]> {
  try {
    yield* parser;
  } catch (err) {
    if (err instanceof CsvError) throw new ValidationError({ detail: MSG.csvUnreadable(err.message) });
    throw err;
  }
}

/**
 * Spreadsheets in many locales save CSV with ';' (or tabs): the header row's most frequent
 * separator outside quotes decides.
 */
export function sniffDelimiter(text: string): string {
  const counts: Record<string, number> = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of text.slice(0, 64 * 1024)) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && ch in counts) counts[ch]++;
  }
  const [best, count] = Object.entries(counts).sort((a, b) => b[1] - a[1])[0];
  return count > 0 ? best : ',';
}

/**
 * The decoder for the body: the Content-Type's charset when given (spreadsheets on Windows
 * save windows-1252), else UTF-8. Fatal, so bytes of another encoding are refused rather
 * than imported as replacement characters.
 */
function csvDecoder(contentType: string | undefined): TextDecoder {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset, { fatal: true });
  } catch {
    throw new ValidationError({ detail: MSG.csvCharsetUnknown(charset) });
  }
}

/** The body as decoded text, chunk by chunk, refused past `limit` bytes. */
async function* decodedChunks(req: RequestBody, limit: number): AsyncGenerator<string> {
  const decoder = csvDecoder(req.headers['content-type'] as string | undefined);
  if (Number(req.headers['content-length']) > limit) throw new HttpError(413, { detail: MSG.bodyTooLarge });
  const decode = (chunk?: Buffer): string => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new ValidationError({ detail: MSG.csvNotDecodable(decoder.encoding) });
    }
  };
  let size = 0;
  try {
    // Reading may stop early (too large, too many bad rows): the request is then drained, not
    // destroyed, so the answer still reaches the client.
    for await (const chunk of req.iterator({ destroyOnReturn: false })) {
      size += (chunk as Buffer).length;
      if (size > limit) throw new HttpError(413, { detail: MSG.bodyTooLarge });
      const text = decode(chunk as Buffer);
      if (text) yield text;
    }
    const tail = decode();
    if (tail) yield tail;
  } finally {
    if (!req.readableEnded) req.resume();
  }
}

/** The first chunks, up to the end of the header row (or one row's worth), for sniffing. */
async function readHead(chunks: AsyncIterator<string>): Promise<string> {
  let head = '';
  while (!/[\r\n]/.test(head) && head.length < CSV_MAX_ROW_CHARS) {
    const next = await chunks.next();
    if (next.done) break;
    head += next.value;
  }
  return head;
}

async function* prepend(head: string, rest: AsyncGenerator<string>): AsyncGenerator<string> {
  try {
    if (head) yield head;
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
  } finally {
    // Stopped early: `rest` drains the request, so the connection can carry the next one.
    await rest.return(undefined);
  }
}
