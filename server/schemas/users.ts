import { z } from './zod';
import { pathId, requiredText } from './fields';
import { RoleField } from './auth';
import { MSG } from '../../core/messages';
import { DEFAULT_ROLE } from '../../core/roles';

export const PASSWORD_MIN = 8;

/** Spaces are kept (a passphrase may have them); only the length is checked. */
export const Password = z
  .string({ error: (issue) => (issue.input === undefined ? MSG.required : MSG.invalidString) })
  .min(PASSWORD_MIN, { error: MSG.passwordTooShort(PASSWORD_MIN) })
  .max(1024, { error: 'Ensure this field has no more than 1024 characters.' });

export const Username = requiredText(150);

export const UserCreate = z
  .object({ username: Username, password: Password, role: RoleField.default(DEFAULT_ROLE) })
  .openapi('UserCreate');

export const UserUpdate = z.object({ password: Password.optional(), role: RoleField.optional() }).openapi('UserUpdate');

export const UserParams = z.object({ group_id: pathId, user_id: pathId });

/** What POST and PUT answer. */
export const UserSaved = z.object({ id: z.number().int(), username: z.string(), role: RoleField }).openapi('UserSaved');

export const User = z
  .object({
    id: z.number().int(),
    username: z.string(),
    role: RoleField,
    group_id: z.number().int().nullable(),
    created: z.string(),
    modified: z.string(),
  })
  .openapi('User');
