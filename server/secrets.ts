import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;
// N = 32768 needs a 32 MiB work area (128 × N × r bytes) and a little more: past glibc's largest
// mmap threshold, so every hash maps its area and hands it back. A smaller area (N = 16384)
// stays in the arena of each libuv thread that hashed, for the life of the process: 16 MiB
// resident per thread. Node refuses more than 32 MiB unless maxmem says otherwise.
const SCRYPT = { N: 32768, r: 8, p: 1 };
const KEY_LENGTH = 64;
const SCRYPT_MAXMEM = 64 * 1024 * 1024;

type Cost = typeof SCRYPT;

/** `scrypt$N$r$p$salt$hash`, so the cost can be raised later without breaking old hashes. */
function storedForm(cost: Cost, salt: Buffer, hash: Buffer): string {
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

function parseStored(stored: string): { cost: Cost; salt: Buffer; hash: Buffer } | undefined {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return undefined;
  return { cost: { N: Number(n), r: Number(r), p: Number(p) }, salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
}

const hashAt = (cost: Cost, password: string, salt: Buffer, length: number) => scrypt(password, salt, length, { ...cost, maxmem: SCRYPT_MAXMEM });

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return storedForm(SCRYPT, salt, await hashAt(SCRYPT, password, salt, KEY_LENGTH));
}

/**
 * A hash in the stored form, with today's cost, that no password matches (its digest is
 * random): checking a password against it costs what checking a real one does, without the
 * scrypt that hashing a decoy password would take.
 */
export function unmatchableHash(): string {
  return storedForm(SCRYPT, randomBytes(16), randomBytes(KEY_LENGTH));
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseStored(stored);
  if (!parsed) return false;
  return timingSafeEqual(await hashAt(parsed.cost, password, parsed.salt, parsed.hash.length), parsed.hash);
}

/** Whether a stored hash was made with today's cost; an older one is made again at the next sign-in. */
export function hashHasCurrentCost(stored: string): boolean {
  const cost = parseStored(stored)?.cost;
  return cost?.N === SCRYPT.N && cost.r === SCRYPT.r && cost.p === SCRYPT.p;
}

/** A new random secret (token or API key), shown to its owner once. */
export function newSecret(prefix = ''): string {
  return prefix + randomBytes(30).toString('base64url');
}

/** Secrets are stored only as this hash; a fast hash is right for 240-bit random values. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
