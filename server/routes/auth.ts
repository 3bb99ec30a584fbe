import { rateLimit } from 'express-rate-limit';
import { deleteToken, findUserByUsername, insertToken, upgradePasswordHash } from '../../db/repositories/users';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { ForbiddenError, ValidationError } from '../http/errors';
import { AuthRequest, AuthResponse, Me } from '../schemas/auth';
import { roleAllows } from '../http/scope';
import { MSG } from '../../core/messages';
import { hashHasCurrentCost, hashPassword, hashSecret, newSecret, unmatchableHash, verifyPassword } from '../secrets';
import { DatabaseLimitStore } from '../http/login-limit';
import { DetailResponse } from '../schemas/fields';

const TOKEN_LIFETIME_MS = 30 * 24 * 3600 * 1000;
/** Set once a username and password were actually tried: only those failures count as guesses. */
const PASSWORD_CHECKED = 'doorlistPasswordChecked';
// The sign-in call itself, with or without a trailing slash (not /logout below it).
const SIGN_IN_PATH = /^\/apps\/api\/auth\/?$/i;

/** Issues a token for the user, as the sign-in call and first-run set-up answer it. */
export async function issueToken(deps: RouteDeps, userId: number): Promise<string> {
  const token = newSecret();
  await insertToken(deps.db, userId, hashSecret(token), new Date(Date.now() + TOKEN_LIFETIME_MS).toISOString());
  return token;
}

/**
 * Signing in and out with a user's password, and the signed-in user.
 *
 * Over 80 lines only as a table: one `route()` declaration per endpoint (schemas, answers, a
 * handler of a few lines), kept together so the resource's routes read in one place.
 */
export function authRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);
  // An unknown username is checked against this hash, so it costs the same scrypt as a known
  // one and sign-in timing does not tell which usernames exist.
  const decoyHash = unmatchableHash();

  // Only wrong passwords count (a real guess), so a door full of laptops signing in, or a client
  // sending a malformed body, never locks the way in.
  router.post(
    SIGN_IN_PATH,
    rateLimit({
      windowMs: 15 * 60 * 1000,
      limit: 20,
      skipSuccessfulRequests: true,
      requestWasSuccessful: (_req, res) => res.statusCode < 400 || res.locals[PASSWORD_CHECKED] !== true,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      message: { detail: MSG.tooManyLogins },
      // Counted in the database: every server process on it shares the limit.
      store: new DatabaseLimitStore(deps.db),
    }),
  );

  route({
    method: 'post',
    path: '/apps/api/auth',
    operationId: 'signIn',
    summary: 'Exchange a username and password (JSON only) for a token',
    tags: ['Authentication'],
    public: true,
    // So no page the laptop's browser opens can spend its sign-in attempts (a form post never counts).
    jsonOnly: true,
    documentedBody: AuthRequest,
    description: 'Every refusal of the credentials (missing, empty, unknown user, wrong password) answers the same empty object `{}`.',
    responses: {
      200: { description: 'A token for the Authorization header', content: { 'application/json': { schema: AuthResponse } } },
      400: 'Missing or wrong credentials (empty object)',
      429: {
        description: `${MSG.tooManyLogins} (20 wrong passwords from one address in 15 minutes)`,
        headers: { 'Retry-After': { description: 'Seconds until the address may try again.', schema: { type: 'integer' } } },
        content: { 'application/json': { schema: DetailResponse } },
      },
    },
    handler: async ({ req, res }) => {
      // The spec answers every credential failure with the same empty object.
      const credentials = AuthRequest.safeParse(req.body ?? {});
      if (!credentials.success) throw new ValidationError({});
      res.locals[PASSWORD_CHECKED] = true;
      await deps.auth.passwordsSettled();
      const user = await findUserByUsername(deps.db, credentials.data.username);
      const matches = await verifyPassword(credentials.data.password, user?.password_hash ?? decoyHash);
      if (!user || !matches) throw new ValidationError({});
      if (!hashHasCurrentCost(user.password_hash)) await upgradePasswordHash(deps.db, user.id, user.password_hash, await hashPassword(credentials.data.password));
      return { status: 200, body: { token: await issueToken(deps, user.id) } };
    },
  });

  route({
    method: 'get',
    path: '/me',
    operationId: 'getMe',
    summary: 'Who the token or key is: its kind, role and group, so a screen can hide what the role may not do',
    tags: ['Authentication'],
    access: 'door',
    responses: { 200: { description: 'The caller', content: { 'application/json': { schema: Me } } } },
    handler: async ({ caller }) => ({
      status: 200,
      body: {
        kind: caller.kind,
        role: caller.role,
        is_admin: caller.isAdmin,
        group_id: caller.groupId,
        manages_access: roleAllows(caller, 'signed-in-manager'),
      },
    }),
  });

  route({
    method: 'post',
    path: '/apps/api/auth/logout',
    operationId: 'signOut',
    summary: 'Sign out: the token this request carries stops working at once',
    tags: ['Authentication'],
    access: 'door',
    responses: { 204: 'Signed out', 403: MSG.keyCannotSignOut },
    handler: async ({ caller }) => {
      // A key is revoked by a manager (DELETE .../api_keys/:id), never by whoever holds it.
      if (caller.tokenId === undefined) throw new ForbiddenError(MSG.keyCannotSignOut);
      await deleteToken(deps.db, caller.tokenId);
      deps.auth.forget();
      return { status: 204 };
    },
  });

  return router;
}
