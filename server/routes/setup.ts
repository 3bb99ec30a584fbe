import type { Request } from 'express';
import { claimFirstRun, hasAnyUser } from '../../db/repositories/users';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { ConflictError, ForbiddenError } from '../http/errors';
import { isLoopbackAddress, isLoopbackHost } from '../lan';
import { AuthResponse } from '../schemas/auth';
import { SetupRequest, SetupState } from '../schemas/setup';
import { MSG } from '../../core/messages';
import { hashPassword } from '../secrets';
import { issueToken } from './auth';

const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema: schema as never } } });

// Headers a proxy adds to name the client it relays.
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/** The Host header's name, without its port or an IPv6 address's brackets. */
function hostName(req: Request): string {
  return (req.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
}

/**
 * Whether the client is this machine. Its address decides: with DOORLIST_TRUST_PROXY, the one
 * the trusted proxies forwarded (req.ip walks X-Forwarded-For through trusted peers only), else
 * the socket's peer, and then a forwarding header means a proxy on this machine relays someone
 * else. Host never admits anyone; it can only refuse: a page whose own name was pointed at
 * 127.0.0.1 (DNS rebinding) sends that name, and only literal loopback names are taken.
 */
function fromThisMachine(req: Request, trustsProxy: boolean): boolean {
  if (!isLoopbackAddress(req.ip)) return false;
  if (!trustsProxy && FORWARDING_HEADERS.some((name) => req.headers[name] !== undefined)) return false;
  const host = hostName(req);
  // 0.0.0.0 reaches this machine when typed on it (the server bound to every interface).
  return isLoopbackHost(host) || host === '0.0.0.0';
}

/** First run: the door screen asks whether an administrator is still to be made, and makes one. */
export function setupRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  route({
    method: 'get',
    path: '/setup',
    operationId: 'getSetupState',
    summary: 'Whether Doorlist still needs its first administrator',
    tags: ['First run'],
    public: true,
    responses: { 200: json(SetupState, 'needed: true while no user exists') },
    handler: async () => ({ status: 200, body: { needed: !(await hasAnyUser(deps.db)) } }),
  });

  route({
    method: 'post',
    path: '/setup',
    operationId: 'createFirstAdministrator',
    summary: 'Create the first administrator (only from the laptop itself, only while no user exists)',
    tags: ['First run'],
    public: true,
    // JSON only, so a web page open on the laptop cannot post this form for its own password.
    jsonOnly: true,
    body: SetupRequest,
    responses: {
      201: json(AuthResponse, 'A token of the new administrator, as the sign-in call answers it'),
      403: MSG.setupFromLaptopOnly,
      409: MSG.alreadySetUp,
    },
    handler: async ({ body, req }) => {
      if (!fromThisMachine(req, deps.config.trustProxy !== undefined)) throw new ForbiddenError(MSG.setupFromLaptopOnly);
      if (await hasAnyUser(deps.db)) throw new ConflictError({ detail: MSG.alreadySetUp });
      const id = await claimFirstRun(deps.db, { username: body.username, password_hash: await hashPassword(body.password) });
      if (id === undefined) throw new ConflictError({ detail: MSG.alreadySetUp });
      return { status: 201, body: { token: await issueToken(deps, id) } };
    },
  });

  return router;
}
