import type { Request } from 'express';
import { z } from '../schemas/zod';
import { MSG } from '../../core/messages';
import type { PageRequest } from '../../core/paging';

export type { PageRequest } from '../../core/paging';

export const DEFAULT_PAGE_SIZE = 250;
export const MAX_PAGE_SIZE = 1000;

const FIRST_MILLIS = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_MILLIS = Date.parse('9999-12-31T23:59:59.999Z');
const UNIX_SECONDS = /^\d{1,12}(\.\d+)?$/;
const ISO_DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-](\d{2}):?(\d{2}))?$/;

/** Milliseconds of an ISO datetime, or NaN for a day or time that does not exist (Feb 30, 24:00). */
function isoMillis(value: string): number {
  const m = ISO_DATETIME.exec(value);
  if (!m) return NaN;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((part) => Number(part ?? 0));
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  const date = new Date(local);
  // Date.UTC rolls Feb 30 over to March: a real day reads back unchanged.
  const real = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day && hour < 24 && minute < 60 && second < 60;
  const [zoneHours, zoneMinutes] = [Number(m[9] ?? 0), Number(m[10] ?? 0)];
  if (!real || zoneHours > 14 || zoneMinutes > 59) return NaN;
  const offset = m[8] && m[8] !== 'Z' ? (m[8][0] === '-' ? -1 : 1) * (zoneHours * 60 + zoneMinutes) * 60_000 : 0;
  return local + Number(`0${m[7] ?? ''}`) * 1000 - offset;
}

/**
 * `timestamp` as Unix seconds or an ISO datetime (UTC when it carries no zone), turned into
 * the stored form of `modified` so the delta is a plain indexed comparison.
 */
export const timestampParam = z
  .string({ error: MSG.invalidTimestamp })
  .trim()
  .transform((value, ctx) => {
    const millis = UNIX_SECONDS.test(value) ? Number(value) * 1000 : isoMillis(value);
    // Years 0 to 9999 only: a later time would be written `+010000-...` and compare below
    // every stored time, so a delta would return everything.
    if (!Number.isFinite(millis) || millis < FIRST_MILLIS || millis > LAST_MILLIS) {
      ctx.addIssue({ code: 'custom', message: MSG.invalidTimestamp });
      return z.NEVER;
    }
    return new Date(millis).toISOString();
  })
  .openapi({
    type: 'string',
    pattern: `^\\s*(${UNIX_SECONDS.source.slice(1, -1)}|${ISO_DATETIME.source.slice(1, -1)})\\s*$`,
    example: '2026-12-01T18:00:00Z',
    description: 'Unix seconds or an ISO datetime (UTC unless it carries a zone), years 0 to 9999: only records modified at or after it.',
  });

export const ListQuery = z.object({
  page: z.coerce.number({ error: MSG.invalidPage }).int({ error: MSG.invalidPage }).min(1, { error: MSG.invalidPage }).default(1),
  // Larger pages are clamped to the maximum rather than refused, as the original service does.
  page_size: z.coerce
    .number({ error: MSG.invalidInteger })
    .int({ error: MSG.invalidInteger })
    .min(1, { error: 'Ensure this value is greater than or equal to 1.' })
    .default(DEFAULT_PAGE_SIZE)
    .transform((n) => Math.min(n, MAX_PAGE_SIZE))
    // The range answered (zod-to-openapi documents a transform by its input): larger values are taken as the maximum.
    .openapi({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
  timestamp: timestampParam.optional(),
});

export type ListQueryInput = z.output<typeof ListQuery>;


export function pageRequest(query: ListQueryInput): PageRequest {
  return { limit: query.page_size, offset: (query.page - 1) * query.page_size, modifiedSince: query.timestamp };
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

function pageLink(req: Request, page: number): string {
  const url = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
  if (page === 1) url.searchParams.delete('page');
  else url.searchParams.set('page', String(page));
  return url.toString();
}

/** The list envelope: count, absolute next/previous links, results. */
export function envelope<T>(req: Request, query: ListQueryInput, count: number, results: T[]): Page<T> {
  const lastPage = Math.max(1, Math.ceil(count / query.page_size));
  return {
    count,
    next: query.page < lastPage ? pageLink(req, query.page + 1) : null,
    previous: query.page > 1 ? pageLink(req, Math.min(query.page - 1, lastPage)) : null,
    results,
  };
}

/** OpenAPI description of an envelope of `item`. */
export function envelopeSchema<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({ count: z.number().int(), next: z.string().nullable(), previous: z.string().nullable(), results: z.array(item) })
    .openapi(name);
}
