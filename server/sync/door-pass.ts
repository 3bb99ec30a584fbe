import crypto from 'node:crypto';

/**
 * A door pass: what a door screen carries to sign in at any laptop of its event's venue, for
 * that event at the door role alone, without ever holding the venue credential. A laptop mints
 * it from the credential (an HMAC over the event's uid and an expiry); every laptop of the
 * venue holds the same credential, so each checks it without asking anyone.
 * `dlpass1.<event uid>.<expiry, Unix seconds>.<HMAC-SHA256, base64url>`.
 */

export const DOOR_PASS_PREFIX = 'dlpass1.';
/** A night at the door, with room either side: a screen gets a fresh one while its laptop answers. */
export const DOOR_PASS_LIFETIME_S = 24 * 3600;
const UID = /^[A-Za-z0-9-]{1,64}$/;

function mac(credential: string, eventUid: string, expires: number): string {
  return crypto.createHmac('sha256', credential).update(`door-pass|${eventUid}|${expires}`).digest('base64url');
}

export function mintDoorPass(credential: string, eventUid: string, nowMs = Date.now()): { pass: string; expires: Date } {
  const expires = Math.floor(nowMs / 1000) + DOOR_PASS_LIFETIME_S;
  return { pass: `${DOOR_PASS_PREFIX}${eventUid}.${expires}.${mac(credential, eventUid, expires)}`, expires: new Date(expires * 1000) };
}

/** The pass's event uid and expiry when it is one in form (its MAC is checked by `passHolds`). */
export function readDoorPass(pass: string): { eventUid: string; expires: number; mac: string } | undefined {
  if (!pass.startsWith(DOOR_PASS_PREFIX)) return undefined;
  const [eventUid, expires, given, ...rest] = pass.slice(DOOR_PASS_PREFIX.length).split('.');
  if (rest.length > 0 || !eventUid || !UID.test(eventUid) || !/^\d{1,12}$/.test(expires ?? '') || !given) return undefined;
  return { eventUid, expires: Number(expires), mac: given };
}

/** Whether `pass` was minted from `credential` and is not past its expiry. */
export function passHolds(pass: NonNullable<ReturnType<typeof readDoorPass>>, credential: string, nowMs = Date.now()): boolean {
  if (pass.expires * 1000 <= nowMs) return false;
  const expected = Buffer.from(mac(credential, pass.eventUid, pass.expires));
  const given = Buffer.from(pass.mac);
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
}
