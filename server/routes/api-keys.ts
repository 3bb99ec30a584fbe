import { deleteApiKey, insertApiKey, listApiKeys, toApiKey } from '../../db/repositories/api-keys';
import { envelope, envelopeSchema, ListQuery, pageRequest } from '../http/pagination';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { NotFoundError } from '../http/errors';
import { requireGroup } from '../http/scope';
import { ApiKey, ApiKeyCreate, ApiKeyCreated, ApiKeyParams } from '../schemas/auth';
import { GroupParams } from '../schemas/groups';
import { MSG } from '../../core/messages';
import { hashSecret, newSecret } from '../secrets';

const KEY_PREFIX = 'dl_';

// Keys are managed only by signed-in managers (access 'signed-in-manager'): a key left on a
// door laptop cannot mint another or outlive its own revocation.
export function apiKeysRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  route({
    method: 'post',
    path: '/groups/{group_id}/api_keys',
    operationId: 'createApiKey',
    summary: 'Create an API key for a group, with a role (the key is shown only in this answer)',
    tags: ['API keys'],
    access: 'signed-in-manager',
    params: GroupParams,
    body: ApiKeyCreate,
    responses: { 201: { description: 'Created', content: { 'application/json': { schema: ApiKeyCreated } } }, 404: MSG.groupNotFound },
    handler: async ({ params, body, caller }) => {
      const group = await requireGroup(deps.db, caller, params.group_id);
      const key = newSecret(KEY_PREFIX);
      const id = await insertApiKey(deps.db, {
        group_id: group.id,
        name: body.name,
        key_hash: hashSecret(key),
        key_prefix: key.slice(0, KEY_PREFIX.length + 5),
        role: body.role,
      });
      return { status: 201, body: { id, name: body.name, role: body.role, key } };
    },
  });

  route({
    method: 'get',
    path: '/groups/{group_id}/api_keys',
    operationId: 'listApiKeys',
    summary: "List a group's API keys and their roles (never their secrets)",
    tags: ['API keys'],
    access: 'signed-in-manager',
    params: GroupParams,
    query: ListQuery,
    responses: { 200: { description: 'Keys', content: { 'application/json': { schema: envelopeSchema(ApiKey, 'ApiKeyList') } } }, 404: MSG.groupNotFound },
    handler: async ({ params, query, caller, req }) => {
      const group = await requireGroup(deps.db, caller, params.group_id);
      const { count, rows } = await listApiKeys(deps.db, group.id, pageRequest(query));
      return { status: 200, body: envelope(req, query, count, rows.map(toApiKey)) };
    },
  });

  route({
    method: 'delete',
    path: '/groups/{group_id}/api_keys/{key_id}',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key; it stops working at once',
    tags: ['API keys'],
    access: 'signed-in-manager',
    params: ApiKeyParams,
    responses: { 204: 'Revoked', 404: MSG.apiKeyNotFound },
    handler: async ({ params, caller }) => {
      const group = await requireGroup(deps.db, caller, params.group_id);
      if (!(await deleteApiKey(deps.db, group.id, params.key_id))) throw new NotFoundError(MSG.apiKeyNotFound);
      deps.auth.forget();
      return { status: 204 };
    },
  });

  return router;
}
