import { i18next } from './i18n';
import { utcToZoneInput, zoneInputToUtc } from './zone-time';

export { utcToZoneInput, zoneInputToUtc };

/** A moment as the API (a UTC Datetime) or the station (milliseconds, a Date) holds it. */
export type Moment = string | number | Date;

/** A moment as an instant (`undefined` for none or nonsense). */
function instantOf(at: Moment | null | undefined): Date | undefined {
  if (at === null || at === undefined || at === '') return undefined;
  const date = typeof at === 'string' ? new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(at) ? at : `${at}Z`) : new Date(at);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A time of day on the event's clock, labelled with its zone as the language writes it ("18:05 CET"). */
export function eventTime(at: Moment | null | undefined, timeZone: string): string {
  const instant = instantOf(at);
  if (!instant) return '';
  return new Intl.DateTimeFormat(i18next.language, { hour: 'numeric', minute: '2-digit', timeZone, timeZoneName: 'short' }).format(instant);
}

/** A date and time on the event's clock, labelled with its zone ("1 Dec 2026, 18:05 CET"). */
export function eventDateTime(utc: string | null | undefined, timeZone: string): string {
  const instant = instantOf(utc);
  if (!instant) return '';
  return new Intl.DateTimeFormat(i18next.language, { day: 'numeric', month: 'short', year: 'numeric', hour: 'numeric', minute: '2-digit', timeZone, timeZoneName: 'short' }).format(instant);
}

/**
 * The event's zone as the language writes it next to a time ("CET", "GMT+1"), at a moment (its
 * summer and winter names differ): the label a list of unlabelled times carries once.
 */
export function zoneName(timeZone: string, at: Moment = Date.now()): string {
  const instant = instantOf(at) ?? new Date();
  const parts = new Intl.DateTimeFormat(i18next.language, { hour: 'numeric', timeZone, timeZoneName: 'short' }).formatToParts(instant);
  return parts.find((part) => part.type === 'timeZoneName')?.value ?? timeZone;
}

/** A wall time already on the event's clock (an event's or a sales period's), as text. */
export function wallTime(value: string | null | undefined): string {
  return value ? value.slice(0, 16).replace('T', ' ') : '';
}
