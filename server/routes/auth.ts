import { rateLimit } from 'express-rate-limit';
import { findUserByUsername, insertToken } from '../../db/repositories/users';
import { resourceRouter, type RouteDeps } from '../route';
import { ValidationError } from '../errors';
import { AuthRequest, AuthResponse } from '../schemas/auth';
import { MSG } from '../../core/messages';
import { hashSecret, newSecret, verifyPassword } from '../secrets';
import { DatabaseLimitStore } from '../login-limit';

const TOKEN_LIFETIME_MS = 30 * 24 * 3600 * 1000;
/** Set once a username and password were actually tried: only those failures count as guesses. */
const PASSWORD_CHECKED = 'doorlistPasswordChecked';

export function authRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  // Only wrong passwords count (a real guess), so a door full of laptops signing in, or a client
  // sending a malformed body, never locks the way in.
  router.use(
    '/apps/api/auth',
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
    summary: 'Exchange a username and password for a token',
    tags: ['Authentication'],
    public: true,
    responses: {
      200: { description: 'A token for the Authorization header', content: { 'application/json': { schema: AuthResponse } } },
      400: 'Missing or wrong credentials (empty object)',
    },
    handler: async ({ req, res }) => {
      // The spec answers every credential failure with the same empty object.
      const credentials = AuthRequest.safeParse(req.body ?? {});
      if (!credentials.success) throw new ValidationError({});
      res.locals[PASSWORD_CHECKED] = true;
      const user = await findUserByUsername(deps.db, credentials.data.username);
      if (!user || !(await verifyPassword(credentials.data.password, user.password_hash))) throw new ValidationError({});
      const token = newSecret();
      await insertToken(deps.db, user.id, hashSecret(token), new Date(Date.now() + TOKEN_LIFETIME_MS).toISOString());
      return { status: 200, body: { token } };
    },
  });

  return router;
}
