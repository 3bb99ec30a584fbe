import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { LanState } from '../schemas/lan';

/** What the console's share panel shows: where the LAN reaches this laptop and what to trust. */
export function lanRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  route({
    method: 'get',
    path: '/lan',
    operationId: 'getLanSharing',
    summary: 'Sharing on the LAN: HTTPS addresses, where to get the authority, and its fingerprint',
    tags: ['LAN'],
    access: 'door',
    responses: { 200: { description: 'The LAN as this laptop serves it', content: { 'application/json': { schema: LanState } } } },
    handler: async () => {
      const info = deps.lan.info();
      return {
        status: 200,
        body: {
          sharing: info.sharing,
          https_urls: info.httpsUrls,
          http_urls: info.httpUrls,
          authority_urls: info.authorityUrls,
          fingerprint: info.fingerprint ?? null,
          certificate_fingerprint: info.certificateFingerprint ?? null,
        },
      };
    },
  });

  return router;
}
