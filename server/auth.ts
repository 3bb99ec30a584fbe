import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from '../db/knex';
import { findApiKeyGroup } from '../db/repositories/api-keys';
import { groupSubtreeIds, type GroupScope } from '../db/repositories/groups';
import { findTokenOwner } from '../db/repositories/users';
import { nowIso } from '../core/time';
import { UnauthorizedError } from './errors';
import { hashSecret } from './secrets';

/** Who is asking, and which groups they may see (`null`: all of them). */
export interface Caller {
  kind: 'user' | 'key';
  id: number;
  isAdmin: boolean;
  /** The group a key belongs to (or a non-admin user's group). */
  groupId: number | null;
  groups: GroupScope;
}

// `Token`, any run of spaces, the secret; clients send all of these.
const AUTH_HEADER = /^Token\s+(\S+)\s*$/i;
const CACHE_MS = 30_000;

/**
 * Resolves `Authorization: Token ...` to a Caller. Answers are cached briefly because
 * every scan at the door carries the header; anything that changes a scope or revokes a
 * key calls `forget()` so the change applies at once.
 */
export class Authenticator {
  // Keyed by the header as sent, so a door's repeated header costs one map lookup (no hash);
  // only resolved callers are kept, so junk tokens cannot grow it.
  private cache = new Map<string, { caller: Caller; until: number; expires?: string }>();

  constructor(private readonly db: Db) {}

  /** Takes Express's request or node:http's (the scan's fast path runs before Express). */
  async authenticate(req: { headers: IncomingHttpHeaders }): Promise<Caller> {
    const header = req.headers.authorization ?? '';
    const cached = this.cache.get(header);
    const now = Date.now();
    if (cached && cached.until > now && (!cached.expires || cached.expires > nowIso())) return cached.caller;
    const match = AUTH_HEADER.exec(header);
    if (!match) throw new UnauthorizedError();
    const resolved = await this.resolve(hashSecret(match[1]));
    if (!resolved) throw new UnauthorizedError();
    this.cache.set(header, { ...resolved, until: now + CACHE_MS });
    return resolved.caller;
  }

  forget(): void {
    this.cache.clear();
  }

  private async resolve(hash: string): Promise<{ caller: Caller; expires?: string } | undefined> {
    const key = await findApiKeyGroup(this.db, hash);
    if (key) {
      const groups = await groupSubtreeIds(this.db, key.group_id);
      return { caller: { kind: 'key', id: key.id, isAdmin: false, groupId: key.group_id, groups } };
    }
    const owner = await findTokenOwner(this.db, hash);
    if (!owner || owner.expires <= nowIso()) return undefined;
    const groups = owner.is_admin ? null : owner.group_id ? await groupSubtreeIds(this.db, owner.group_id) : [];
    return {
      caller: { kind: 'user', id: owner.user_id, isAdmin: owner.is_admin, groupId: owner.group_id, groups },
      expires: owner.expires,
    };
  }
}
