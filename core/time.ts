/** Server-recorded instants are stored as ISO-8601 UTC strings with milliseconds, so they sort as text. */
export function nowIso(): string {
  return new Date().toISOString();
}

/**
 * An instant in its stored form, `YYYY-MM-DDThh:mm:ss.sssZ` (what nowIso writes and PostgreSQL
 * reads back), from the API's Datetime (UTC, no zone) or an ISO text with a zone; null when it
 * names no real time. One stored form on both databases keeps instants comparable as text and
 * event files byte for byte the same whichever database wrote them.
 */
export function storedInstant(value: string): string | null {
  const iso = value.replace(' ', 'T');
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(iso);
  const date = new Date(zoned ? iso : `${iso}Z`);
  if (Number.isNaN(date.getTime())) return null;
  const text = date.toISOString();
  // Date rolls 30 February over into March; without a zone the day and minute must stay.
  return zoned || text.startsWith(iso.slice(0, 16)) ? text : null;
}

/** The API's Datetime form: `YYYY-MM-DDThh:mm:ss`, no zone, no fractions. */
export function toApiDatetime(value: string | null | undefined): string | null {
  if (value == null) return null;
  return value.slice(0, 19).replace(' ', 'T');
}

/**
 * Stored form of a Datetime the client sent as `YYYY-MM-DDThh:mm[:ss]`: seconds always present,
 * so values compare as text.
 */
export function normaliseDatetime(value: string): string {
  return value.length === 16 ? `${value}:00` : value.slice(0, 19);
}

const zonedFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * A stored instant as a wall time in `timeZone` with that moment's offset,
 * `YYYY-MM-DDThh:mm:ss+hh:mm`: what a person reads off the venue's clock, and still one instant.
 */
export function zonedIso(instant: string, timeZone: string): string {
  let format = zonedFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'longOffset' });
    zonedFormats.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(storedInstant(instant) ?? instant)).map((p) => [p.type, p.value]));
  // "GMT" alone at offset zero, else "GMT+05:30".
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : parts.timeZoneName.slice(3);
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}
