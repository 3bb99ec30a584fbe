import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from '../../db/knex';
import { findApiKeyGroup } from '../../db/repositories/api-keys';
import { groupSubtreeIds, type GroupScope } from '../../db/repositories/groups';
import { findTokenOwner } from '../../db/repositories/users';
import { venueCredentialOfEventUid, venueOfCredential } from '../../db/repositories/venue';
import { passHolds, readDoorPass } from '../sync/door-pass';
import type { Role } from '../../core/roles';
import { nowIso } from '../../core/time';
import { UnauthorizedError } from './errors';
import { hashSecret } from '../secrets';

/** Who is asking, what they may do, and which groups they may see (`null`: all of them). */
export interface Caller {
  /** `venue`: another laptop of the event's venue, with its credential (scope.ts lets it reach that event's sync only). */
  kind: 'user' | 'key' | 'venue' | 'door-pass';
  id: number;
  isAdmin: boolean;
  /** An administrator counts as a manager. */
  role: Role;
  /** The group a key belongs to (or a non-admin user's group). */
  groupId: number | null;
  groups: GroupScope;
  /** The token this request carries (users only): sign-out and a password change need it. */
  tokenId?: number;
  /** The one event a venue credential or a door pass speaks for. */
  venueEventId?: number;
}

/** Who made a scan, as check-ins record it: a door may undo only its own. */
export function scannerOf(caller: Caller): string {
  return `${caller.kind}:${caller.id}`;
}

// `Token`, any run of spaces, the secret; clients send all of these.
const AUTH_HEADER = /^Token\s+(\S+)\s*$/i;
// Other processes sharing the database may revoke a key or change a role: no answer is
// trusted for longer than this. A door scanning every second still costs one lookup a second.
export const AUTH_CACHE_MS = 1000;
// Distinct live secrets remembered at once; the least recently used is dropped beyond it.
export const AUTH_CACHE_MAX = 1000;

interface CacheEntry {
  caller: Caller;
  until: number;
  expires?: string;
}

/**
 * Resolves `Authorization: Token ...` to a Caller. Answers are cached by the secret's hash
 * (so every spelling of the header is one entry), in a bounded LRU, for at most a second;
 * whatever revokes a secret or changes a scope or role in this process calls `forget()`, so
 * here the change applies at once.
 */
export class Authenticator {
  // A Map iterates in insertion order: re-inserting on use keeps the least recent first.
  private cache = new Map<string, CacheEntry>();
  private passwordWork?: () => Promise<void>;
  private passwordsDone?: Promise<void>;

  /** `now`: the clock the cache's lifetime runs on (tests move it). */
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Work to finish before any password is compared: the start leaves the environment's
   * administrator password to the first sign-in (server/start.ts ensureAdmin).
   */
  beforePasswords(work: () => Promise<void>): void {
    this.passwordWork = work;
  }

  /** Runs that work once, the first time it is asked for; a failed run is tried again next time. */
  passwordsSettled(): Promise<void> {
    const work = this.passwordWork;
    if (!work) return Promise.resolve();
    this.passwordsDone ??= work().then(
      () => (this.passwordWork = undefined),
      (err: unknown) => {
        this.passwordsDone = undefined;
        throw err;
      },
    );
    return this.passwordsDone;
  }

  /** Takes Express's request or node:http's (the scan's fast path runs before Express). */
  async authenticate(req: { headers: IncomingHttpHeaders }): Promise<Caller> {
    const match = AUTH_HEADER.exec(req.headers.authorization ?? '');
    if (!match) throw new UnauthorizedError();
    const hash = hashSecret(match[1]);
    const now = this.now();
    const cached = this.cache.get(hash);
    if (cached) {
      this.cache.delete(hash);
      if (cached.until > now && (!cached.expires || cached.expires > nowIso())) {
        this.cache.set(hash, cached);
        return cached.caller;
      }
    }
    const resolved = await this.resolve(hash, match[1]);
    if (!resolved) throw new UnauthorizedError();
    this.cache.set(hash, { ...resolved, until: now + AUTH_CACHE_MS });
    if (this.cache.size > AUTH_CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    return resolved.caller;
  }

  /** How many secrets are remembered (for the bound's tests). */
  get size(): number {
    return this.cache.size;
  }

  forget(): void {
    this.cache.clear();
  }

  /** A door pass of a venue this laptop is part of: the door role for that one event (scope.ts). */
  private async resolvePass(pass: NonNullable<ReturnType<typeof readDoorPass>>): Promise<{ caller: Caller; expires: string } | undefined> {
    const venue = await venueCredentialOfEventUid(this.db, pass.eventUid);
    if (!venue || !passHolds(pass, venue.credential)) return undefined;
    const caller: Caller = { kind: 'door-pass', id: venue.event_id, isAdmin: false, role: 'door', groupId: venue.group_id, groups: [venue.group_id], venueEventId: venue.event_id };
    return { caller, expires: new Date(pass.expires * 1000).toISOString() };
  }

  private async resolve(hash: string, secret: string): Promise<{ caller: Caller; expires?: string } | undefined> {
    const pass = readDoorPass(secret);
    if (pass) return this.resolvePass(pass);
    const key = await findApiKeyGroup(this.db, hash);
    if (key) {
      const groups = await groupSubtreeIds(this.db, key.group_id);
      return { caller: { kind: 'key', id: key.id, isAdmin: false, role: key.role, groupId: key.group_id, groups } };
    }
    const venue = await venueOfCredential(this.db, hash);
    if (venue) {
      return { caller: { kind: 'venue', id: venue.event_id, isAdmin: false, role: 'door', groupId: venue.group_id, groups: [venue.group_id], venueEventId: venue.event_id } };
    }
    // A token is looked up only once the environment's administrator password is in force: a
    // reset through DOORLIST_ADMIN_PASSWORD revokes that administrator's tokens before any is honoured.
    await this.passwordsSettled();
    const owner = await findTokenOwner(this.db, hash);
    if (!owner || owner.expires <= nowIso()) return undefined;
    const groups = owner.is_admin ? null : owner.group_id ? await groupSubtreeIds(this.db, owner.group_id) : [];
    return {
      caller: {
        kind: 'user',
        id: owner.user_id,
        isAdmin: owner.is_admin,
        role: owner.is_admin ? 'manager' : owner.role,
        groupId: owner.group_id,
        groups,
        tokenId: owner.token_id,
      },
      expires: owner.expires,
    };
  }
}
