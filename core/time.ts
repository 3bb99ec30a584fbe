/** Server-recorded instants are stored as ISO-8601 UTC strings with milliseconds, so they sort as text. */
export function nowIso(): string {
  return new Date().toISOString();
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
