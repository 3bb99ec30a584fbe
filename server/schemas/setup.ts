import { z } from './zod';
import { Password, Username } from './users';

export const SetupState = z
  .object({ needed: z.boolean().describe('True while no user exists: the first administrator is still to be made.') })
  .openapi('SetupState');

export const SetupRequest = z.object({ username: Username, password: Password }).openapi('SetupRequest');
