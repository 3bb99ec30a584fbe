import type { Conn } from '../knex';
import { newRecord } from '../records';
import type { Role } from '../../core/roles';
import { toApiDatetime } from '../../core/time';

export interface ApiKeyRow {
  id: number;
  uid: string;
  group_id: number;
  name: string;
  key_prefix: string;
  role: Role;
  created: string;
}

export function toApiKey(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    group_id: row.group_id,
    prefix: row.key_prefix,
    role: row.role,
    created: toApiDatetime(row.created),
  };
}

export async function insertApiKey(db: Conn, key: { group_id: number; name: string; key_hash: string; key_prefix: string; role: Role }): Promise<number> {
  const [row] = await db('api_keys').insert({ ...newRecord(), ...key }).returning('id');
  return row.id;
}

export async function listApiKeys(db: Conn, groupId: number, page: { limit: number; offset: number }) {
  const base = db<ApiKeyRow>('api_keys').where({ group_id: groupId });
  const [{ count }] = await base.clone().count({ count: '*' });
  const rows = await base.clone().orderBy('id').limit(page.limit).offset(page.offset);
  return { count: Number(count), rows: rows as ApiKeyRow[] };
}

/** Deletes the key; false when the group has no such key. */
export async function deleteApiKey(db: Conn, groupId: number, keyId: number): Promise<boolean> {
  return (await db('api_keys').where({ id: keyId, group_id: groupId }).delete()) > 0;
}

export async function findApiKeyGroup(db: Conn, keyHash: string): Promise<{ id: number; group_id: number; role: Role } | undefined> {
  return db('api_keys').where({ key_hash: keyHash }).first('id', 'group_id', 'role');
}
