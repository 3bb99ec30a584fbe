import { TIMEZONES } from '../../../core/messages';

/** The zone's offset from UTC at `at`, in minutes (public Intl API only). */
function offsetAt(zone: string, at: Date): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute));
  return Math.round((wall - Math.floor(at.getTime() / 60000) * 60000) / 60000);
}

function isZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Instants across a year, twice a month: enough to see every clock change. */
function yearFrom(now: Date): Date[] {
  return Array.from({ length: 24 }, (_, i) => new Date(now.getTime() + i * 15.2 * 86_400_000));
}

export type ZoneSuggestion = { kind: 'same-clock' | 'same-offset-now'; zone: string } | undefined;

/**
 * For a real zone outside the accepted list (Europe/Berlin): an accepted zone that keeps the
 * same clock all year (Europe/Amsterdam), one of the same region first; else one with the same
 * offset today (its clock changes on other dates). Undefined for an accepted zone or no zone.
 */
export function suggestZone(typed: string, now = new Date(), accepted: readonly string[] = TIMEZONES): ZoneSuggestion {
  const zone = typed.trim();
  if (!zone || accepted.includes(zone) || !isZone(zone)) return undefined;
  const region = zone.split('/')[0];
  const byRegion = [...accepted].sort((a, b) => Number(b.split('/')[0] === region) - Number(a.split('/')[0] === region));
  const year = yearFrom(now);
  const clock = year.map((at) => offsetAt(zone, at));
  const same = byRegion.find((candidate) => year.every((at, i) => offsetAt(candidate, at) === clock[i]));
  if (same) return { kind: 'same-clock', zone: same };
  const today = byRegion.find((candidate) => offsetAt(candidate, now) === clock[0]);
  return today ? { kind: 'same-offset-now', zone: today } : undefined;
}
