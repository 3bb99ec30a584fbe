import { z } from './zod';
import { choice, pathId, requiredText } from './fields';
import { MSG } from '../../core/messages';
import { DEFAULT_ROLE, ROLES } from '../../core/roles';

/** `manager` or `door`; see core/roles.ts. */
export const RoleField = choice(ROLES, MSG.invalidRole);

export const AuthRequest = z
  .object({ username: z.string().min(1).max(150), password: z.string().min(1).max(1024) })
  .openapi('AuthRequest');

export const AuthResponse = z.object({ token: z.string() }).openapi('AuthResponse');

export const Me = z
  .object({
    kind: z.enum(['user', 'key']),
    role: RoleField,
    is_admin: z.boolean(),
    group_id: z.number().int().nullable(),
    manages_access: z.boolean().describe('May manage keys, users and the group itself (a signed-in manager or an administrator).'),
  })
  .openapi('Me');

export const ApiKeyCreate = z.object({ name: requiredText(255), role: RoleField.default(DEFAULT_ROLE) }).openapi('ApiKeyCreate');

export const ApiKeyParams = z.object({
  group_id: pathId,
  key_id: pathId,
});

export const ApiKeyCreated = z
  .object({ id: z.number().int(), name: z.string(), role: RoleField, key: z.string().describe('Shown only in this response.') })
  .openapi('ApiKeyCreated');

export const ApiKey = z
  .object({
    id: z.number().int(),
    name: z.string(),
    group_id: z.number().int(),
    prefix: z.string(),
    role: RoleField,
    created: z.string(),
  })
  .openapi('ApiKey');
