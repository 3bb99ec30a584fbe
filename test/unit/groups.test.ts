import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupMoveAllowed, newGroupParent, type GroupPlacer } from '../../core/groups';

/** Where a group may hang (core/groups.ts): the rule of POST and PUT /groups, on reads made up here. */
const admin: GroupPlacer = { isAdmin: true, groupId: null };
const key: GroupPlacer = { isAdmin: false, groupId: 10 };
const orphan: GroupPlacer = { isAdmin: false, groupId: null };

describe('newGroupParent', () => {
  const table: [string, GroupPlacer, number | null | undefined, boolean, { parentId: number | null } | undefined][] = [
    ['an administrator without a parent: the top level', admin, undefined, false, { parentId: null }],
    ['an administrator asking for the top level', admin, null, false, { parentId: null }],
    ['an administrator below a group', admin, 5, true, { parentId: 5 }],
    ['a key without a parent: below its own group', key, undefined, false, { parentId: 10 }],
    ['a key asking for the top level: below its own group', key, null, false, { parentId: 10 }],
    ['a key below a group it sees', key, 11, true, { parentId: 11 }],
    ['a key below a group it does not see', key, 99, false, undefined],
    ['a caller of no group without a parent', orphan, undefined, false, undefined],
  ];
  for (const [name, placer, asked, visible, expected] of table) it(name, () => assert.deepEqual(newGroupParent(placer, asked, visible), expected));
});

describe('groupMoveAllowed', () => {
  // Group 10 with 11 below it and 12 below 11.
  const subtree = [10, 11, 12];
  const table: [string, GroupPlacer, number | null, boolean, boolean][] = [
    ['an administrator to the top level', admin, null, false, true],
    ['a key to the top level', key, null, false, false],
    ['below a visible group elsewhere', key, 20, true, true],
    ['below a group out of sight', key, 20, false, false],
    ['below itself', admin, 10, true, false],
    ['below its child (a cycle)', admin, 11, true, false],
    ['below its grandchild (a cycle)', key, 12, true, false],
  ];
  for (const [name, placer, parentId, visible, expected] of table) it(name, () => assert.equal(groupMoveAllowed(placer, parentId, visible, subtree), expected));
});
