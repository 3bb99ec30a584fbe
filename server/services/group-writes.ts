import type { Db } from '../../db/knex';
import { findGroup, groupSubtreeIds, insertGroup, updateGroup, type GroupFields, type GroupRow, type GroupScope } from '../../db/repositories/groups';
import { sentAtOnce, writeTransaction } from '../../db/write-transaction';
import { ValidationError } from '../../core/errors';
import { groupMoveAllowed, newGroupParent, type GroupPlacer } from '../../core/groups';
import { MSG } from '../../core/messages';

/** A group's create and change, the parent checked by core/groups.ts in the write's transaction. */

type Placer = GroupPlacer & { groups: GroupScope };

const invalidParent = () => ValidationError.field('parent_id', MSG.invalidParentId);

/** Adds a group below the parent asked for (or the caller's default); answers its id. */
export async function createGroup(db: Db, placer: Placer, fields: Omit<GroupFields, 'parent_id'> & { parent_id?: number | null }): Promise<number> {
  return writeTransaction(db, async (trx) => {
    const asked = fields.parent_id;
    const visible = asked != null && (await findGroup(trx, placer.groups, asked)) !== undefined;
    const placed = newGroupParent(placer, asked, visible);
    if (!placed) throw invalidParent();
    return insertGroup(trx, { ...fields, parent_id: placed.parentId });
  });
}

/** Changes a group the caller may manage; a new parent must keep the tree a tree. */
export async function changeGroup(db: Db, placer: Placer, group: GroupRow, fields: Partial<GroupFields>): Promise<void> {
  await writeTransaction(db, async (trx) => {
    const parentId = fields.parent_id;
    if (parentId !== undefined && parentId !== group.parent_id) {
      const [parent, subtree] = parentId === null ? [undefined, []] : await sentAtOnce([findGroup(trx, placer.groups, parentId), groupSubtreeIds(trx, group.id)]);
      if (!groupMoveAllowed(placer, parentId, parent !== undefined, subtree)) throw invalidParent();
    }
    await updateGroup(trx, group.id, fields);
  });
}
