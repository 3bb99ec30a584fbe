import type { Conn, Db } from '../knex';
import { isUniqueViolation, uniqueKey } from '../errors';
import { newRecord, toBool } from '../records';
import { ValidationError } from '../../core/errors';
import { MSG } from '../../core/messages';
import type { Role } from '../../core/roles';
import { nowIso, toApiDatetime } from '../../core/time';
import { writeTransaction } from '../write-transaction';

export interface UserRow {
  id: number;
  uid: string;
  username: string;
  password_hash: string;
  is_admin: number | boolean;
  group_id: number | null;
  role: Role;
  created: string;
  modified: string;
}

export interface TokenOwner {
  token_id: number;
  user_id: number;
  is_admin: boolean;
  group_id: number | null;
  role: Role;
  expires: string;
}

/** A user as the API shows it: never the password hash. */
export function toUser(row: UserRow) {
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    group_id: row.group_id,
    created: toApiDatetime(row.created),
    modified: toApiDatetime(row.modified),
  };
}

export async function findUserByUsername(db: Conn, username: string): Promise<UserRow | undefined> {
  return db<UserRow>('users').where({ username }).first();
}

export async function hasAnyUser(db: Conn): Promise<boolean> {
  return (await db('users').first('id')) !== undefined;
}

const USERNAME_KEY = uniqueKey('users', ['username']);

function usernameTaken(err: unknown): ValidationError | undefined {
  return isUniqueViolation(err, USERNAME_KEY) ? ValidationError.field('username', MSG.usernameTaken) : undefined;
}

export async function insertUser(
  db: Conn,
  user: { username: string; password_hash: string; is_admin: boolean; group_id?: number | null; role?: Role },
): Promise<number> {
  try {
    const [row] = await db('users').insert({ ...newRecord(), ...user }).returning('id');
    return row.id;
  } catch (err) {
    throw usernameTaken(err) ?? err;
  }
}

/**
 * Creates the first administrator, or answers undefined when any user exists. Two set-ups
 * racing (in one process or several) both try to insert the claimed row; the unique index on
 * `first_run_claim` lets exactly one commit.
 */
export async function claimFirstRun(db: Db, user: { username: string; password_hash: string }): Promise<number | undefined> {
  try {
    return await writeTransaction(db, async (trx) => {
      if (await hasAnyUser(trx)) return undefined;
      const [row] = await trx('users').insert({ ...newRecord(), ...user, is_admin: true, first_run_claim: true }).returning('id');
      return row.id as number;
    });
  } catch (err) {
    if (isUniqueViolation(err)) return undefined;
    throw err;
  }
}

/** The env-var administrator's password (re)set at start-up; the user's old tokens end with it. */
export async function setUserPassword(db: Db, id: number, passwordHash: string, isAdmin: boolean): Promise<void> {
  await writeTransaction(db, async (trx) => {
    await trx('users').where({ id }).update({ password_hash: passwordHash, is_admin: isAdmin, modified: nowIso() });
    await trx('tokens').where({ user_id: id }).delete();
  });
}

/**
 * Stores the same password hashed at today's cost, unless the password changed meanwhile. Not a
 * change of password: tokens stay and `modified` does not move.
 */
export async function upgradePasswordHash(db: Db, id: number, oldHash: string, newHash: string): Promise<void> {
  await db('users').where({ id, password_hash: oldHash }).update({ password_hash: newHash });
}

// Administrators are never a group's users: a group's manager cannot reset an administrator's password.
const groupUsers = (db: Conn, groupId: number) => db<UserRow>('users').where({ group_id: groupId, is_admin: false });

export async function listGroupUsers(db: Conn, groupId: number, page: { limit: number; offset: number }) {
  const base = groupUsers(db, groupId);
  const [{ count }] = await base.clone().count({ count: '*' });
  const rows = await base.clone().orderBy('id').limit(page.limit).offset(page.offset);
  return { count: Number(count), rows: rows as UserRow[] };
}

export async function findGroupUser(db: Conn, groupId: number, userId: number): Promise<UserRow | undefined> {
  return groupUsers(db, groupId).where({ id: userId }).first();
}

/**
 * Changes a user's password and/or role in one transaction. A new password ends every other
 * token of the user: all of them, or all but `keepTokenId` when users change their own.
 */
export async function updateUser(db: Db, id: number, change: { password_hash?: string; role?: Role }, keepTokenId?: number): Promise<void> {
  await writeTransaction(db, async (trx) => {
    await trx('users').where({ id }).update({ ...change, modified: nowIso() });
    if (change.password_hash === undefined) return;
    const tokens = trx('tokens').where({ user_id: id });
    if (keepTokenId !== undefined) tokens.whereNot({ id: keepTokenId });
    await tokens.delete();
  });
}

/** Deletes the user (their tokens go with them, by the foreign key's cascade); false if absent. */
export async function deleteGroupUser(db: Conn, groupId: number, userId: number): Promise<boolean> {
  return (await groupUsers(db, groupId).where({ id: userId }).delete()) > 0;
}

/** Inserts the user unless the username is taken (by a process starting at the same moment, say). */
export async function insertUserIfAbsent(db: Conn, user: { username: string; password_hash: string; is_admin: boolean }): Promise<void> {
  await db('users').insert({ ...newRecord(), ...user }).onConflict('username').ignore();
}

export async function insertToken(db: Conn, userId: number, tokenHash: string, expires: string): Promise<void> {
  await db('tokens').insert({ ...newRecord(), user_id: userId, token_hash: tokenHash, expires });
}

export async function deleteToken(db: Conn, tokenId: number): Promise<void> {
  await db('tokens').where({ id: tokenId }).delete();
}

export async function findTokenOwner(db: Conn, tokenHash: string): Promise<TokenOwner | undefined> {
  const row = await db('tokens')
    .join('users', 'users.id', 'tokens.user_id')
    .where('tokens.token_hash', tokenHash)
    .first({ token_id: 'tokens.id' }, 'tokens.user_id', 'users.is_admin', 'users.group_id', 'users.role', 'tokens.expires');
  return row && { ...row, is_admin: toBool(row.is_admin) };
}

export async function deleteExpiredTokens(db: Conn): Promise<void> {
  await db('tokens').where('expires', '<', nowIso()).delete();
}
