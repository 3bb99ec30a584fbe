import { groupSubtreeIds, insertGroup, listGroups, toGroup, updateGroup } from '../../db/repositories/groups';
import { envelope, envelopeSchema, pageRequest } from '../http/pagination';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { ValidationError } from '../http/errors';
import type { Caller } from '../http/auth';
import { requireGroup, scopedGroup } from '../http/scope';
import { IdResponse } from '../schemas/fields';
import { Group, GroupCreate, GroupListQuery, GroupParams, GroupUpdate } from '../schemas/groups';
import { MSG } from '../../core/messages';

/**
 * Groups and their sub-groups: create, change, list and read.
 *
 * Over 80 lines only as a table: one `route()` declaration per endpoint (schemas, answers, a
 * handler of a few lines), kept together so the resource's routes read in one place.
 */
export function groupsRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);
  const invalidParent = () => ValidationError.field('parent_id', MSG.invalidParentId);

  /** A parent must be a group the caller can see; a key's new groups hang below its own group. */
  async function resolveParent(caller: Caller, parentId: number | null | undefined): Promise<number | null> {
    if (parentId == null) return caller.isAdmin ? null : caller.groupId;
    if (!(await scopedGroup(deps.db, caller, parentId))) throw invalidParent();
    return parentId;
  }

  route({
    method: 'post',
    path: '/groups',
    operationId: 'createGroup',
    summary: 'Create a group (fields as query parameters or a JSON body)',
    tags: ['Groups'],
    body: GroupCreate,
    bodyAlsoFromQuery: true,
    responses: { 201: { description: 'Created', content: { 'application/json': { schema: IdResponse } } } },
    handler: async ({ body, caller }) => {
      const parentId = await resolveParent(caller, body.parent_id);
      if (parentId === null && !caller.isAdmin) throw invalidParent();
      const id = await insertGroup(deps.db, {
        name: body.name,
        email: body.email ?? null,
        phone: body.phone ?? null,
        website: body.website ?? null,
        type: body.type,
        parent_id: parentId,
      });
      deps.auth.forget();
      return { status: 201, body: { id } };
    },
  });

  route({
    method: 'put',
    path: '/groups/{group_id}',
    operationId: 'updateGroup',
    summary: 'Update a group',
    tags: ['Groups'],
    access: 'signed-in-manager',
    params: GroupParams,
    body: GroupUpdate,
    bodyAlsoFromQuery: true,
    responses: { 200: { description: 'Updated', content: { 'application/json': { schema: IdResponse } } }, 404: MSG.groupNotFound },
    handler: async ({ params, body, caller }) => {
      const group = await requireGroup(deps.db, caller, params.group_id);
      if (body.parent_id !== undefined && body.parent_id !== group.parent_id) {
        // Only an administrator may make a group top-level; nobody may hang a group below itself.
        if (body.parent_id === null ? !caller.isAdmin : !(await scopedGroup(deps.db, caller, body.parent_id))) throw invalidParent();
        if (body.parent_id !== null && (await groupSubtreeIds(deps.db, group.id)).includes(body.parent_id)) throw invalidParent();
      }
      await updateGroup(deps.db, group.id, body);
      deps.auth.forget();
      return { status: 200, body: { id: group.id } };
    },
  });

  route({
    method: 'get',
    path: '/groups',
    operationId: 'listGroups',
    summary: 'List groups (parent_id lists the sub-groups of a group)',
    tags: ['Groups'],
    access: 'door',
    query: GroupListQuery,
    responses: { 200: { description: 'Groups', content: { 'application/json': { schema: envelopeSchema(Group, 'GroupList') } } } },
    handler: async ({ query, caller, req }) => {
      const { count, rows } = await listGroups(deps.db, caller.groups, { parentId: query.parent_id }, pageRequest(query));
      return { status: 200, body: envelope(req, query, count, rows.map(toGroup)) };
    },
  });

  route({
    method: 'get',
    path: '/groups/{group_id}',
    operationId: 'getGroup',
    summary: 'One group',
    tags: ['Groups'],
    access: 'door',
    params: GroupParams,
    responses: { 200: { description: 'The group', content: { 'application/json': { schema: Group } } }, 404: MSG.groupNotFound },
    handler: async ({ params, caller }) => ({ status: 200, body: toGroup(await requireGroup(deps.db, caller, params.group_id)) }),
  });

  return router;
}
