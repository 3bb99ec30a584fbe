import { resourceRouter, type RouteDeps } from '../http/route';
import { scopedEvent } from '../http/scope';
import { EventParams } from '../schemas/events';
import { CertificateRequest, IssuedCertificate, LanState } from '../schemas/lan';
import { signCertificateRequest } from '../lan-certificates';
import { MSG } from '../../core/messages';

/**
 * What the console's share panel shows (where the LAN reaches this laptop and what to trust),
 * and the signing of a follower's LAN certificate by this laptop's authority.
 */
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

  route({
    method: 'post',
    path: '/events/{event_id}/sync/certificate',
    operationId: 'signFollowerCertificate',
    summary: "For a follower of the event: its LAN certificate, signed by this laptop's authority for its LAN addresses, so the venue's phones trust one authority",
    tags: ['LAN'],
    // What a follower's sync key, or the venue's credential for this event, may do.
    access: 'sync',
    params: EventParams,
    body: CertificateRequest,
    responses: { 200: { description: 'Signed', content: { 'application/json': { schema: IssuedCertificate } } }, 404: MSG.eventNotFound },
    handler: async ({ params, caller, body }) => {
      await scopedEvent(deps.readDb, caller, params.event_id);
      const authority = await deps.lan.identity.authority();
      const certificate = await signCertificateRequest(authority, body.certificate_request);
      return { status: 200, body: { certificate, authority: authority.cert, authority_fingerprint: authority.fingerprint } };
    },
  });

  return router;
}
