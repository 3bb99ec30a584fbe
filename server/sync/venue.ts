import type { Conn } from '../../db/knex';
import type { EventRow } from '../../db/repositories/events';
import { listMembers, openVenue, readVenue, recordMember, takeOver, type VenueMember } from '../../db/repositories/venue';
import { ConflictError, NotFoundError } from '../../core/errors';
import { parseFingerprint, showFingerprint } from '../../core/fingerprint';
import { MSG } from '../../core/messages';
import { VENUE_MEMBERS_MAX } from '../../core/sync-limits';
import { toApiDatetime } from '../../core/time';
import { isVenueUrl } from '../../core/venue';
import { newSecret } from '../secrets';
import type { LanShare } from '../lan';
import type { VenueAnswer, VenueHello } from '../schemas/venue';

/**
 * A venue that outlives its box-office laptop (issue 47): what a laptop answers another of its
 * venue, what a console reads of it, and the takeover. The watching (greeting the upstream,
 * asking the others when it is silent) is venue-watch.ts.
 */

/** How this laptop names itself to the venue: its LAN HTTPS base and fingerprint only while it shares the LAN. */
export interface VenueSelf {
  name: string;
  url: string | null;
  /** 64 lowercase hex digits of its authority. */
  fingerprint: string | null;
}

/** Read each time: sharing starts and stops, addresses change. */
export function venueSelf(stationName: string, lan: LanShare): () => VenueSelf {
  return () => {
    const https = lan.https;
    const base = https?.urls.map((u) => `${u}/api/v1`).find(isVenueUrl) ?? null;
    return { name: stationName, url: base, fingerprint: https ? parseFingerprint(https.fingerprint) : null };
  };
}

/** A new venue credential: random, for one event's sync alone. */
export function newVenueCredential(): string {
  return newSecret('dlv_');
}

/**
 * Answers a laptop of the venue that said who it is. An event no venue knows yet becomes one
 * with this laptop as its upstream at epoch 1 (its first follower's first hello). The upstream
 * notes a follower that shares the LAN as a member, at most VENUE_MEMBERS_MAX of them.
 */
export async function answerHello(db: Conn, event: EventRow, hello: VenueHello, self: VenueSelf): Promise<VenueAnswer> {
  const venue = (await readVenue(db, event.id)) ?? (await openVenue(db, event.id, newVenueCredential()));
  let members = venue.members;
  if (venue.part === 'upstream' && hello.part === 'follower' && hello.url && hello.fingerprint && hello.url !== self.url) {
    const noted = await recordMember(db, event.id, { name: hello.name, url: hello.url, fingerprint: hello.fingerprint, remote_event_id: hello.event_id });
    if (!noted) throw new ConflictError({ detail: MSG.venueFull(VENUE_MEMBERS_MAX) });
    members = await listMembers(db, event.id);
  }
  return {
    event_uid: event.uid,
    name: self.name,
    url: self.url,
    fingerprint: self.fingerprint,
    event_id: event.id,
    epoch: venue.epoch,
    part: venue.part,
    credential: venue.credential,
    members: members.filter((m) => m.url !== hello.url).map(({ remote_event_id, ...m }) => ({ ...m, event_id: remote_event_id })),
  };
}

/** A member as the API shows it. */
function shownMember(m: VenueMember) {
  return { name: m.name, url: m.url, fingerprint: showFingerprint(m.fingerprint), last_seen_at: toApiDatetime(m.last_seen_at) };
}

/** What the sync status adds about the venue: the epoch, the laptops, the note. */
export async function venueStatus(db: Conn, eventId: number) {
  const venue = await readVenue(db, eventId);
  return { epoch: venue?.epoch ?? 1, venue: (venue?.members ?? []).map(shownMember), venue_note: venue?.note ?? null };
}

/** GET /events/{event_id}/sync/venue: the venue on any of its laptops, its upstream included. */
export async function venueView(db: Conn, event: EventRow) {
  const venue = await readVenue(db, event.id);
  if (!venue) throw new NotFoundError(MSG.venueNotFound);
  return { part: venue.part, epoch: venue.epoch, upstream_url: venue.upstream_url, note: venue.note, venue: venue.members.map(shownMember) };
}

/** POST /events/{event_id}/sync/takeover: this laptop becomes the venue's upstream, one epoch up. */
export async function takeOverVenue(db: Conn, event: EventRow): Promise<{ epoch: number }> {
  const epoch = await takeOver(db, event.id, newVenueCredential());
  if (epoch === undefined) throw new ConflictError({ detail: MSG.venueNotFollowed });
  return { epoch };
}

