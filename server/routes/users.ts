import { deleteGroupUser, findGroupUser, insertUser, listGroupUsers, toUser, updateUser } from '../../db/repositories/users';
import { envelope, envelopeSchema, ListQuery, pageRequest } from '../http/pagination';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { NotFoundError } from '../http/errors';
import { requireGroup } from '../http/scope';
import { GroupParams } from '../schemas/groups';
import { User, UserCreate, UserParams, UserSaved, UserUpdate } from '../schemas/users';
import { MSG } from '../../core/messages';
import { hashPassword } from '../secrets';

const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema: schema as never } } });

/**
 * The people of a group: each signs in with the auth call and sees exactly what a key of
 * their group and role sees. Managed only by signed-in managers, never with an API key.
 */
export function usersRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  route({
    method: 'post',
    path: '/groups/{group_id}/users',
    operationId: 'createUser',
    summary: 'Create a user of the group with a role (manager or door)',
    tags: ['Users'],
    access: 'signed-in-manager',
    params: GroupParams,
    body: UserCreate,
    responses: { 201: json(UserSaved, 'Created'), 404: MSG.groupNotFound },
    handler: async ({ params, body, caller }) => {
      const group = await requireGroup(deps.db, caller, params.group_id);
      const password_hash = await hashPassword(body.password);
      const id = await insertUser(deps.db, { username: body.username, password_hash, is_admin: false, group_id: group.id, role: body.role });
      return { status: 201, body: { id, username: body.username, role: body.role } };
    },
  });

  route({
    method: 'get',
    path: '/groups/{group_id}/users',
    operationId: 'listUsers',
    summary: "List the group's users and their roles (never a password)",
    tags: ['Users'],
    access: 'signed-in-manager',
    params: GroupParams,
    query: ListQuery,
    responses: { 200: json(envelopeSchema(User, 'UserList'), 'Users'), 404: MSG.groupNotFound },
    handler: async ({ params, query, caller, req }) => {
      const group = await requireGroup(deps.db, caller, params.group_id);
      const { count, rows } = await listGroupUsers(deps.db, group.id, pageRequest(query));
      return { status: 200, body: envelope(req, query, count, rows.map(toUser)) };
    },
  });

  route({
    method: 'put',
    path: '/groups/{group_id}/users/{user_id}',
    operationId: 'updateUser',
    summary: "Change a user's password or role; a new password ends the user's other sessions",
    tags: ['Users'],
    access: 'signed-in-manager',
    params: UserParams,
    body: UserUpdate,
    responses: { 200: json(UserSaved, 'Updated'), 404: MSG.userNotFound },
    handler: async ({ params, body, caller }) => {
      const group = await requireGroup(deps.db, caller, params.group_id);
      const user = await findGroupUser(deps.db, group.id, params.user_id);
      if (!user) throw new NotFoundError(MSG.userNotFound);
      const password_hash = body.password === undefined ? undefined : await hashPassword(body.password);
      // Users changing their own password keep the session they changed it from.
      const keep = caller.kind === 'user' && caller.id === user.id ? caller.tokenId : undefined;
      await updateUser(deps.db, user.id, { password_hash, role: body.role }, keep);
      deps.auth.forget();
      return { status: 200, body: { id: user.id, username: user.username, role: body.role ?? user.role } };
    },
  });

  route({
    method: 'delete',
    path: '/groups/{group_id}/users/{user_id}',
    operationId: 'deleteUser',
    summary: "Delete a user; the user's tokens stop working at once",
    tags: ['Users'],
    access: 'signed-in-manager',
    params: UserParams,
    responses: { 204: 'Deleted', 404: MSG.userNotFound },
    handler: async ({ params, caller }) => {
      const group = await requireGroup(deps.db, caller, params.group_id);
      if (!(await deleteGroupUser(deps.db, group.id, params.user_id))) throw new NotFoundError(MSG.userNotFound);
      deps.auth.forget();
      return { status: 204 };
    },
  });

  return router;
}
