import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { scopedEvent } from '../http/scope';
import { EventParams } from '../schemas/events';
import { CertificateRequest, DoorPass, IssuedCertificate, LanState } from '../schemas/lan';
import { signCertificateRequest } from '../lan-certificates';
import { mintDoorPass } from '../sync/door-pass';
import { readVenue } from '../../db/repositories/venue';
import { NotFoundError, UnauthorizedError } from '../http/errors';
import { showFingerprint } from '../../core/fingerprint';
import { toApiDatetime } from '../../core/time';
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

  route({
    method: 'post',
    path: '/events/{event_id}/sync/door_pass',
    operationId: 'mintDoorPass',
    summary: "For a door screen: a pass that signs it in at the venue's other laptops for this event alone, and where they are, so it moves to the venue's upstream by itself when this laptop stops answering",
    tags: ['LAN'],
    access: 'door',
    params: EventParams,
    responses: { 200: { description: 'The pass and the laptops', content: { 'application/json': { schema: DoorPass } } }, 404: MSG.venueNotFound },
    handler: async ({ params, caller }) => {
      // A pass is minted for a signed-in door only: a pass renewing itself would never expire.
      if (caller.kind === 'door-pass') throw new UnauthorizedError();
      const event = await scopedEvent(deps.readDb, caller, params.event_id, MSG.venueNotFound);
      const venue = await readVenue(deps.readDb, event.id);
      if (!venue?.credential) throw new NotFoundError(MSG.venueNotFound);
      const { pass, expires } = mintDoorPass(venue.credential, event.uid);
      const laptops = venue.members.map((m) => ({ name: m.name, url: m.url, fingerprint: showFingerprint(m.fingerprint), event_id: m.remote_event_id }));
      return { status: 200, body: { pass, expires_at: toApiDatetime(expires.toISOString()) as string, event_uid: event.uid, epoch: venue.epoch, laptops } };
    },
  });

  return router;
}
