import type { Conn } from '../knex';
import { newRecord } from '../records';
import { nowIso, toApiDatetime } from '../../core/time';

export interface GroupRow {
  id: number;
  uid: string;
  name: string;
  email: string | null;
  phone: string | null;
  website: string | null;
  type: string;
  parent_id: number | null;
  created: string;
  modified: string;
}

export type GroupFields = Pick<GroupRow, 'name' | 'email' | 'phone' | 'website' | 'type' | 'parent_id'>;

/** `null` means every group (an administrator); otherwise the ids a caller may see. */
export type GroupScope = readonly number[] | null;

export function toGroup(row: GroupRow) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    website: row.website,
    type: row.type,
    parent_id: row.parent_id,
    created: toApiDatetime(row.created),
    modified: toApiDatetime(row.modified),
  };
}

function scoped(db: Conn, scope: GroupScope) {
  const q = db<GroupRow>('groups');
  return scope === null ? q : q.whereIn('id', scope as number[]);
}

/** A group and all groups below it. */
export async function groupSubtreeIds(db: Conn, rootId: number): Promise<number[]> {
  const rows = await db
    .withRecursive('subtree', ['id'], (qb) => {
      qb.select('id').from('groups').where('id', rootId).unionAll((u) => {
        u.select('groups.id').from('groups').join('subtree', 'groups.parent_id', 'subtree.id');
      });
    })
    .select('id')
    .from('subtree');
  return rows.map((r: { id: number }) => r.id);
}

export async function findGroup(db: Conn, scope: GroupScope, id: number): Promise<GroupRow | undefined> {
  return scoped(db, scope).where({ id }).first();
}

export async function listGroups(db: Conn, scope: GroupScope, filter: { parentId?: number }, page: { limit: number; offset: number; modifiedSince?: string }) {
  const base = scoped(db, scope);
  if (filter.parentId !== undefined) base.where({ parent_id: filter.parentId });
  if (page.modifiedSince) base.where('modified', '>=', page.modifiedSince);
  const [{ count }] = await base.clone().count({ count: '*' });
  const rows = await base.clone().orderBy('id').limit(page.limit).offset(page.offset);
  return { count: Number(count), rows: rows as GroupRow[] };
}

export async function insertGroup(db: Conn, fields: GroupFields): Promise<number> {
  const [row] = await db('groups').insert({ ...newRecord(), ...fields }).returning('id');
  return row.id;
}

export async function updateGroup(db: Conn, id: number, fields: Partial<GroupFields>): Promise<void> {
  await db('groups').where({ id }).update({ ...fields, modified: nowIso() });
}
