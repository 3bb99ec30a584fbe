import { i18next } from '../i18n';
import { utcToZoneInput, zoneInputToUtc } from './zone-time';

export { utcToZoneInput, zoneInputToUtc };

/** A UTC API Datetime as an instant (`undefined` for none or nonsense). */
function instantOf(utc: string | null | undefined): Date | undefined {
  if (!utc) return undefined;
  const date = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(utc) ? utc : `${utc}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A time of day on the event's clock, labelled with its zone as the language writes it ("18:05 CET"). */
export function eventTime(utc: string | null | undefined, timeZone: string): string {
  const instant = instantOf(utc);
  if (!instant) return '';
  return new Intl.DateTimeFormat(i18next.language, { hour: 'numeric', minute: '2-digit', timeZone, timeZoneName: 'short' }).format(instant);
}

/** A date and time on the event's clock, labelled with its zone ("1 Dec 2026, 18:05 CET"). */
export function eventDateTime(utc: string | null | undefined, timeZone: string): string {
  const instant = instantOf(utc);
  if (!instant) return '';
  return new Intl.DateTimeFormat(i18next.language, { day: 'numeric', month: 'short', year: 'numeric', hour: 'numeric', minute: '2-digit', timeZone, timeZoneName: 'short' }).format(instant);
}

/** A wall time already on the event's clock (an event's or a sales period's), as text. */
export function wallTime(value: string | null | undefined): string {
  return value ? value.slice(0, 16).replace('T', ' ') : '';
}
