/**
 * Where a group may hang in the tree of groups: the rule of POST and PUT /groups, on what was
 * read for it (server/services/group-writes.ts).
 */

/** Who places the group: an administrator anywhere; a key or user below the groups it sees. */
export interface GroupPlacer {
  isAdmin: boolean;
  /** The caller's own group (a key's, a non-administrator's); null for an administrator. */
  groupId: number | null;
}

/**
 * The parent a new group takes: the one asked for when the placer sees it; without one, the
 * top level for an administrator and the placer's own group for anyone else. Undefined: refused.
 */
export function newGroupParent(placer: GroupPlacer, asked: number | null | undefined, askedVisible: boolean): { parentId: number | null } | undefined {
  if (asked != null) return askedVisible ? { parentId: asked } : undefined;
  if (placer.isAdmin) return { parentId: null };
  return placer.groupId === null ? undefined : { parentId: placer.groupId };
}

/**
 * Whether a group may move below `parentId` (null: the top level, an administrator's call
 * only): the new parent must be one the placer sees, and neither the group nor one below it
 * (`subtree`: the group and every group under it), which would make a cycle.
 */
export function groupMoveAllowed(placer: GroupPlacer, parentId: number | null, parentVisible: boolean, subtree: readonly number[]): boolean {
  if (parentId === null) return placer.isAdmin;
  return parentVisible && !subtree.includes(parentId);
}
