import { z } from './zod';
import { requiredText } from './fields';
import { MSG } from '../../core/messages';
import { parseFingerprint } from '../../core/fingerprint';
import { isVenueUrl } from '../../core/venue';
import { VENUE_EPOCH_MAX, VENUE_MEMBERS_MAX, VENUE_NAME_MAX, VENUE_URL_MAX } from '../../core/sync-limits';

/**
 * A venue that outlives its box-office laptop (issue 47): what a venue's laptops tell each other
 * (POST /events/{event_id}/sync/venue), what a console reads of it, and the takeover's answer.
 */

const venueUrl = requiredText(VENUE_URL_MAX)
  .refine(isVenueUrl, { error: MSG.venueUrl })
  .openapi({ description: "A laptop's LAN HTTPS base, e.g. https://192.168.1.21:8788/api/v1 (a private or loopback address written out)" });

const hexFingerprint = z
  .string({ error: MSG.syncFingerprintFormat })
  .max(200, { error: MSG.syncFingerprintFormat })
  .transform((value, ctx) => {
    const hex = parseFingerprint(value);
    if (hex === null) {
      ctx.addIssue({ code: 'custom', message: MSG.syncFingerprintFormat });
      return z.NEVER;
    }
    return hex;
  })
  .openapi({ type: 'string', description: "SHA-256 of the laptop's LAN certificate or of its authority (64 hex digits; colons, spaces and case ignored)" });

const epoch = z.number().int().min(1).max(VENUE_EPOCH_MAX).openapi({ description: 'The venue epoch: 1 for a first follow, one more at each takeover' });
const part = z.enum(['upstream', 'follower']).openapi({ description: "The speaker's part in the venue for this event" });

/** What a laptop says of itself each time it speaks to another of its venue. */
export const VenueHello = z
  .object({
    name: requiredText(VENUE_NAME_MAX).openapi({ description: "The speaker's station name" }),
    url: venueUrl.nullable().openapi({ description: "The speaker's LAN HTTPS base; null while it does not share the LAN (it is then nobody's member)" }),
    fingerprint: hexFingerprint.nullable(),
    event_id: z.number().int().min(1).max(VENUE_EPOCH_MAX).openapi({ description: "The speaker's own id of the event" }),
    epoch,
    part,
  })
  .openapi('VenueHello');
export type VenueHello = z.infer<typeof VenueHello>;

/** A member as laptops hand the list to each other (its own event id included). */
const VenuePeer = z.object({
  name: z.string().min(1).max(VENUE_NAME_MAX),
  url: z.string().max(VENUE_URL_MAX).refine(isVenueUrl),
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
  event_id: z.number().int().min(1).max(VENUE_EPOCH_MAX),
  last_seen_at: z.string().max(32),
});

/**
 * The answer to a hello: who answers (for the event), its part and epoch, the venue credential
 * (a secret: sent over the pinned link only, never shown) and the laptops it knows.
 */
export const VenueAnswer = z
  .object({
    event_uid: z.string().max(64),
    name: z.string().min(1).max(VENUE_NAME_MAX),
    url: z.string().max(VENUE_URL_MAX).refine(isVenueUrl).nullable(),
    fingerprint: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
    event_id: z.number().int().min(1),
    epoch,
    part,
    credential: z.string().min(20).max(255).nullable().openapi({ description: "The venue credential of this event (the event's sync only, door role); kept by the follower, never shown" }),
    members: z.array(VenuePeer).max(VENUE_MEMBERS_MAX),
  })
  .openapi('VenueAnswer');
export type VenueAnswer = z.infer<typeof VenueAnswer>;

/** A laptop of the venue as a screen shows it. */
export const VenueMember = z
  .object({
    name: z.string(),
    url: z.string(),
    fingerprint: z.string().openapi({ description: 'AA:BB:... as the laptop shows it' }),
    last_seen_at: z.string().nullable().openapi({ description: 'When the upstream last heard from it' }),
  })
  .openapi('VenueMember');

/** GET /events/{event_id}/sync/venue: the event's venue on any laptop of it, its upstream included. */
export const VenueView = z
  .object({
    part,
    epoch,
    upstream_url: z.string().nullable().openapi({ description: "The followed upstream's base; null on the venue's upstream" }),
    note: z.string().nullable().openapi({ description: 'What the console shows about the venue (a takeover lost to another laptop)' }),
    venue: z.array(VenueMember),
  })
  .openapi('VenueView');

export const TakeoverAnswer = z.object({ epoch }).openapi('TakeoverAnswer');
