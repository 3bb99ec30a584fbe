import { listGroups, toGroup } from '../../db/repositories/groups';
import { envelope, envelopeSchema, pageRequest } from '../http/pagination';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { requireGroup } from '../http/scope';
import { changeGroup, createGroup } from '../services/group-writes';
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
      const id = await createGroup(deps.db, caller, {
        name: body.name,
        email: body.email ?? null,
        phone: body.phone ?? null,
        website: body.website ?? null,
        type: body.type,
        parent_id: body.parent_id,
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
      // The parent's rule (scope, top level, no cycle): core/groups.ts, through the service.
      await changeGroup(deps.db, caller, group, body);
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
