import { i18next } from '.';

/**
 * The API writes Datetimes as `YYYY-MM-DDThh:mm:ss` without a zone: server-recorded times are
 * UTC, an event's starts/ends are in the event's own timezone (DESIGN "Records").
 */
export function utcInstant(apiDatetime: string): Date {
  return new Date(`${apiDatetime}Z`);
}

/** A time of day as the station's language writes it, on the event's clock. */
export function formatTime(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat(i18next.language, { hour: 'numeric', minute: '2-digit', timeZone }).format(instant);
}

/** A date and time as the station's language writes it, on the event's clock. */
export function formatDateTime(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat(i18next.language, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(instant);
}

/** A count in the station's language (digit grouping). */
export function formatNumber(value: number): string {
  return new Intl.NumberFormat(i18next.language).format(value);
}
