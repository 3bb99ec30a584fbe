/**
 * Wall-clock times in an event's timezone and the API's UTC Datetimes, both ways. The API
 * writes server times and session, track and promotion times in UTC (`YYYY-MM-DDThh:mm:ss`,
 * no zone); the console shows and takes every time on the event's clock (issue 38).
 */

const formats = new Map<string, Intl.DateTimeFormat>();

function wallFormat(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formats.set(timeZone, format);
  }
  return format;
}

/** The wall time in `timeZone` at an instant, as milliseconds of the same digits read as UTC. */
function wallMillis(instant: number, timeZone: string): number {
  const p = Object.fromEntries(wallFormat(timeZone).formatToParts(new Date(instant)).map((part) => [part.type, part.value]));
  return Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
}

const DATETIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d))?$/;

/** A UTC API Datetime as `YYYY-MM-DDThh:mm` on the event's clock (a form's value); '' for none. */
export function utcToZoneInput(utc: string | null | undefined, timeZone: string): string {
  if (!utc || !DATETIME.test(utc.slice(0, 19))) return '';
  const instant = Date.parse(`${utc.slice(0, 19)}Z`);
  return new Date(wallMillis(instant, timeZone)).toISOString().slice(0, 16);
}

/**
 * `YYYY-MM-DDThh:mm` on the event's clock as the API's UTC Datetime. What is not such a time is
 * handed on as typed, so the server answers its own format error; a wall time skipped by a
 * clock change reads as the same time in the offset before it.
 */
export function zoneInputToUtc(wall: string, timeZone: string): string {
  const m = DATETIME.exec(wall);
  if (!m) return wall;
  const asUtc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  if (new Date(asUtc).toISOString().slice(0, 16) !== wall.slice(0, 16)) return wall;
  // The offset at a guess, then at the corrected instant: right on both sides of a change.
  let instant = asUtc - (wallMillis(asUtc, timeZone) - asUtc);
  instant = asUtc - (wallMillis(instant, timeZone) - instant);
  return new Date(instant).toISOString().slice(0, 16);
}
