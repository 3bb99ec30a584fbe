import type { FieldErrors } from './errors';
import { MSG } from './messages';

/**
 * A start and an end that bound something (an event, a track, a session, a promotion code's
 * validity): the start comes no later than the end. One rule for the API's creates and
 * updates and for event files' records.
 */
export interface Span {
  starts: string | null;
  ends: string | null;
}

/** The side that names the error, and the spec's words, per kind of record. */
const SPAN_WORDING = {
  event: { field: 'ends', message: MSG.eventEndsBeforeStart },
  track: { field: 'starts', message: MSG.trackDatesOrder },
  session: { field: 'starts', message: MSG.sessionDatesOrder },
  promotionCode: { field: 'ends', message: MSG.promotionCodeEndsBeforeStart },
} as const;

export type SpanKind = keyof typeof SPAN_WORDING;

/**
 * The field error of a span whose start comes after its end (the same moment is allowed), or
 * none: a change's sides are taken over what is stored. An unset side bounds nothing.
 * Both sides are stored instants or wall-clock times of one form, so they compare as text.
 */
export function spanErrors(kind: SpanKind, change: Partial<Span>, stored?: Span): FieldErrors {
  const starts = change.starts ?? stored?.starts ?? null;
  const ends = change.ends ?? stored?.ends ?? null;
  if (starts === null || ends === null || !(starts > ends)) return {};
  const { field, message } = SPAN_WORDING[kind];
  return { [field]: [message] };
}
