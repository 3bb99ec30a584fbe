/**
 * What a sync log line may carry of an upstream and of a failure: the upstream's origin, never
 * its path or a key; at most `LOGGED_REASON_CHARS` of a reason (a database error can carry a
 * whole statement).
 */
const LOGGED_REASON_CHARS = 300;

export function loggedReason(text: string): string {
  return text.slice(0, LOGGED_REASON_CHARS);
}

export function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'unknown';
  }
}
