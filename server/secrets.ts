import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;
const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 64 };

/** `scrypt$N$r$p$salt$hash`, so the cost can be raised later without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/**
 * A hash in the stored form, with today's cost, that no password matches (its digest is
 * random): checking a password against it costs what checking a real one does, without the
 * scrypt that hashing a decoy password would take.
 */
export function unmatchableHash(): string {
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, randomBytes(16).toString('base64'), randomBytes(SCRYPT.keylen).toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected);
}

/** A new random secret (token or API key), shown to its owner once. */
export function newSecret(prefix = ''): string {
  return prefix + randomBytes(30).toString('base64url');
}

/** Secrets are stored only as this hash; a fast hash is right for 240-bit random values. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
