import type { Conn } from '../knex';
import { newRecord, toBool } from '../records';
import { nowIso } from '../../core/time';

export interface UserRow {
  id: number;
  uid: string;
  username: string;
  password_hash: string;
  is_admin: number | boolean;
  group_id: number | null;
}

export interface TokenOwner {
  user_id: number;
  is_admin: boolean;
  group_id: number | null;
  expires: string;
}

export async function findUserByUsername(db: Conn, username: string): Promise<UserRow | undefined> {
  return db<UserRow>('users').where({ username }).first();
}

export async function insertUser(
  db: Conn,
  user: { username: string; password_hash: string; is_admin: boolean; group_id?: number | null },
): Promise<number> {
  const [row] = await db('users').insert({ ...newRecord(), ...user }).returning('id');
  return row.id;
}

/** Inserts the user unless the username is taken (by a process starting at the same moment, say). */
export async function insertUserIfAbsent(db: Conn, user: { username: string; password_hash: string; is_admin: boolean }): Promise<void> {
  await db('users').insert({ ...newRecord(), ...user }).onConflict('username').ignore();
}

export async function setUserPassword(db: Conn, id: number, passwordHash: string, isAdmin: boolean): Promise<void> {
  await db('users').where({ id }).update({ password_hash: passwordHash, is_admin: isAdmin, modified: nowIso() });
}

export async function insertToken(db: Conn, userId: number, tokenHash: string, expires: string): Promise<void> {
  await db('tokens').insert({ ...newRecord(), user_id: userId, token_hash: tokenHash, expires });
}

export async function findTokenOwner(db: Conn, tokenHash: string): Promise<TokenOwner | undefined> {
  const row = await db('tokens')
    .join('users', 'users.id', 'tokens.user_id')
    .where('tokens.token_hash', tokenHash)
    .first('tokens.user_id', 'users.is_admin', 'users.group_id', 'tokens.expires');
  return row && { ...row, is_admin: toBool(row.is_admin) };
}

export async function deleteExpiredTokens(db: Conn): Promise<void> {
  await db('tokens').where('expires', '<', nowIso()).delete();
}
