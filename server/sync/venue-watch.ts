import type { Logger } from 'pino';
import type { Conn, Db } from '../../db/knex';
import { findEvent, type EventRow } from '../../db/repositories/events';
import { insertSync, repointSync, BEGINNING, type SyncRow } from '../../db/repositories/sync';
import { adoptVenue, listUpstreamVenues, readVenue, type Venue, type VenueMember, type VenuePart } from '../../db/repositories/venue';
import { MSG } from '../../core/messages';
import { nowIso } from '../../core/time';
import { outranks, type VenueClaim } from '../../core/venue';
import type { VenueAnswer, VenueHello } from '../schemas/venue';
import { Upstream, UpstreamError, type UpstreamTiming } from './upstream';
import type { VenueSelf } from './venue';
import { loggedReason, safeOrigin } from './log-fields';

/**
 * How a venue outlives its upstream (issue 47), beside the follower's cycles:
 * - after each pull a follower tells its upstream who it is and keeps what it answers (the
 *   epoch, the credential, the venue's laptops);
 * - a follower whose upstream has been silent for `probeMs` (or now answers as a follower
 *   itself) asks the venue's other laptops; one that answers as the upstream at a higher epoch
 *   is followed from then on, pinned to the fingerprint learned, with the venue credential, and
 *   everything this laptop holds goes up to it (merged by uid: exactly once);
 * - the venue's upstream asks the laptops it has not heard from for `probeMs`; one that
 *   outranks it (core/venue.ts `outranks`) is followed the same way, and the status says so.
 */

export interface VenueWatchOptions {
  self: () => VenueSelf;
  /** DOORLIST_VENUE_PROBE_S, in ms. */
  probeMs: number;
}

/** A question to another laptop takes at most this long, whatever the sync's own bounds. */
const ASK_DEADLINE_MS = 10_000;
/** A follower asks again at most this often while its upstream stays silent. */
const REASK_MAX_MS = 2000;

interface Heard {
  member: VenueMember;
  answer: VenueAnswer;
}

export class VenueWatch {
  /** When each event last asked the venue. */
  private readonly askedAt = new Map<number, number>();
  /** Syncs whose upstream answered as a follower: the venue's upstream is elsewhere now. */
  private readonly moved = new Set<number>();
  /** When each event's venue was last written from its upstream's answer. */
  private readonly keptAt = new Map<number, number>();
  /** What was last logged per subject, so a state is logged once, not every second. */
  private readonly logged = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly options: VenueWatchOptions,
    private readonly timing: Partial<UpstreamTiming>,
    private readonly stop: AbortSignal,
  ) {}

  private hello(event: EventRow, venue: Venue, part: VenuePart): VenueHello {
    const self = this.options.self();
    return { name: self.name, url: self.url, fingerprint: self.fingerprint, event_id: event.id, epoch: venue.epoch, part };
  }

  /** After a pull: tells the upstream who this laptop is and keeps what it answers. Never fails the cycle. */
  async greet(sync: SyncRow, event: EventRow, upstream: Upstream): Promise<void> {
    const venue = await readVenue(this.db, event.id);
    if (!venue) return;
    const answer = await upstream.venue(sync.remote_event_id, this.hello(event, venue, 'follower')).catch((err: unknown) => {
      // Refused (a list past its bounds, an address outside the LAN) or not answered (an upstream of an earlier version): logged once.
      this.note(`greet:${sync.id}`, 'warn', { event_id: event.id, reason: reasonOf(err) }, "venue: nothing was taken of the upstream's venue answer");
      return undefined;
    });
    if (!answer) return;
    this.logged.delete(`greet:${sync.id}`);
    if (answer.event_uid !== event.uid) return this.note(`greet:${sync.id}`, 'warn', { event_id: event.id }, 'venue: the upstream answered about another event; nothing of it was kept');
    if (answer.part === 'follower') {
      this.moved.add(sync.id);
      return;
    }
    this.moved.delete(sync.id);
    if (answer.epoch < venue.epoch) return this.note(`greet:${sync.id}`, 'warn', { event_id: event.id, epoch: answer.epoch, known: venue.epoch }, 'venue: the upstream answered a stale epoch; nothing of it was kept');
    if (this.unchanged(venue, answer)) return;
    await this.keep(this.db, event, venue, answer, 'follower', undefined, sync.id);
    this.keptAt.set(event.id, Date.now());
  }

  /**
   * Whether an answer says nothing this laptop does not hold but fresher times: a follower asks
   * every second and its writer is the door's, so the venue is written again only when it
   * changed, or once a quarter of the probe time has passed (for the times shown).
   */
  private unchanged(venue: Venue, answer: VenueAnswer): boolean {
    if (Date.now() - (this.keptAt.get(venue.event_id) ?? 0) >= this.options.probeMs / 4) return false;
    if (venue.part !== 'follower' || answer.epoch !== venue.epoch || (answer.credential ?? venue.credential) !== venue.credential) return false;
    const same = (members: VenueMember[]) => members.map((m) => `${m.name}|${m.url}|${m.fingerprint}|${m.remote_event_id}`).sort().join('\n');
    return same(this.membersOf(answer)) === same(venue.members);
  }

  /** The laptops an answer names: the one that answered and those it knows, this one left out. */
  private membersOf(answer: VenueAnswer): VenueMember[] {
    const self = this.options.self();
    const members: VenueMember[] = [];
    if (answer.url && answer.fingerprint) members.push({ name: answer.name, url: answer.url, fingerprint: answer.fingerprint, remote_event_id: answer.event_id, last_seen_at: nowIso() });
    for (const m of answer.members) {
      if (m.url === self.url || m.url === answer.url) continue;
      members.push({ name: m.name, url: m.url, fingerprint: m.fingerprint, remote_event_id: m.event_id, last_seen_at: m.last_seen_at });
    }
    return members;
  }

  /**
   * Before a follower's cycle: when its upstream has been silent for probeMs (or answered as a
   * follower), asks the venue's laptops. True when the sync follows another laptop now.
   */
  async rehome(sync: SyncRow, event: EventRow): Promise<boolean> {
    const now = Date.now();
    const moved = this.moved.has(sync.id);
    const silentSince = Date.parse(sync.last_pull_at ?? '');
    const silent = sync.state !== 'ok' && !(now - silentSince < this.options.probeMs);
    if (!silent && !moved) return false;
    if (now - (this.askedAt.get(event.id) ?? 0) < Math.min(this.options.probeMs, REASK_MAX_MS)) return false;
    this.askedAt.set(event.id, now);
    const venue = await readVenue(this.db, event.id);
    if (!venue?.credential) return false;
    const self = this.options.self();
    const heard = await this.ask(event, venue, venue.members.filter((m) => m.url !== self.url && m.url !== sync.url), 'follower');
    // A laptop that answers as the upstream above the epoch known; the same epoch only once the old upstream answers as a follower.
    const best = bestOf(heard.filter(({ answer }) => answer.part === 'upstream' && (answer.epoch > venue.epoch || (moved && answer.epoch === venue.epoch))));
    if (!best) return false;
    const { member, answer } = best;
    const repointed = await this.db.transaction(async (trx) => {
      // A takeover (or an unfollow) while the venue was asked removed the sync: this laptop follows nobody now.
      if (!(await repointSync(trx, sync.id, { url: member.url, remote_event_id: answer.event_id, upstream_key: venue.credential as string, fingerprint: member.fingerprint }))) return false;
      await this.keep(trx, event, venue, answer, 'follower', MSG.venueMoved(answer.name, answer.epoch));
      return true;
    });
    if (!repointed) return false;
    this.moved.delete(sync.id);
    this.logger.warn({ event_id: event.id, upstream: safeOrigin(member.url), epoch: answer.epoch }, "venue: following the venue's new upstream");
    return true;
  }

  /** Each tick: the events this laptop is the upstream of ask, every probeMs, the laptops not heard from since. */
  async watchUpstreams(): Promise<void> {
    const now = Date.now();
    for (const eventId of await listUpstreamVenues(this.db)) {
      if (this.stop.aborted) return;
      if (now - (this.askedAt.get(eventId) ?? 0) < this.options.probeMs) continue;
      this.askedAt.set(eventId, now);
      const [venue, event] = [await readVenue(this.db, eventId), await findEvent(this.db, null, eventId)];
      if (!venue?.credential || !event || venue.part !== 'upstream') continue;
      const self = this.options.self();
      const quiet = venue.members.filter((m) => m.url !== self.url && !(now - Date.parse(m.last_seen_at) < this.options.probeMs));
      // A laptop not on the LAN loses every tie: no other laptop could follow it.
      const mine: VenueClaim = { epoch: venue.epoch, fingerprint: self.fingerprint ?? 'g', url: self.url ?? '' };
      const heard = await this.ask(event, venue, quiet, 'upstream');
      const best = bestOf(heard.filter(({ member, answer }) => answer.part === 'upstream' && outranks(claimOf(member, answer), mine)));
      if (!best) continue;
      const { member, answer } = best;
      const note = answer.epoch === venue.epoch ? MSG.venueLostTie(answer.name) : MSG.venueOutranked(answer.name, answer.epoch);
      await this.db.transaction(async (trx) => {
        await insertSync(trx, { event_id: eventId, url: member.url, remote_event_id: answer.event_id, upstream_key: venue.credential as string, push_cursor: BEGINNING, pull_cursor: BEGINNING, fingerprint: member.fingerprint });
        await this.keep(trx, event, venue, answer, 'follower', note);
      });
      this.logger.warn({ event_id: eventId, upstream: safeOrigin(member.url), epoch: answer.epoch }, 'venue: another laptop is the upstream; following it');
    }
  }

  /** Asks each of `members` at once, pinned to what was learned, with the venue credential; what answered about this event. */
  private async ask(event: EventRow, venue: Venue, members: VenueMember[], part: VenuePart): Promise<Heard[]> {
    const hello = this.hello(event, venue, part);
    const timing = { ...this.timing, deadlineMs: Math.min(this.timing.deadlineMs ?? ASK_DEADLINE_MS, ASK_DEADLINE_MS), idleMs: ASK_DEADLINE_MS };
    const answers = await Promise.all(
      members.map(async (member) => {
        const subject = `ask:${event.id}:${member.url}`;
        const peer = new Upstream(member.url, venue.credential as string, { fingerprint: member.fingerprint, followed: true, stop: this.stop, timing });
        try {
          const answer = await peer.venue(member.remote_event_id, hello);
          if (answer.event_uid !== event.uid) {
            this.note(subject, 'warn', { event_id: event.id, peer: safeOrigin(member.url) }, 'venue: a laptop answered about another event; nothing of it was kept');
            return undefined;
          }
          this.logged.delete(subject);
          return { member, answer };
        } catch (err) {
          // A pin that does not match, a refused credential, a silent laptop: logged once each, never the credential.
          this.note(subject, 'info', { event_id: event.id, peer: safeOrigin(member.url), reason: reasonOf(err) }, "venue: a laptop of the venue did not answer");
          return undefined;
        }
      }),
    );
    return answers.filter((a): a is Heard => a !== undefined);
  }

  /** Keeps what a laptop answered: its epoch and credential, it and the laptops it knows. */
  private async keep(db: Conn, event: EventRow, venue: Venue, answer: VenueAnswer, part: VenuePart, note?: string, whileFollowed?: number): Promise<void> {
    const credential = answer.credential ?? venue.credential;
    if (!credential) return;
    await adoptVenue(db, event.id, { epoch: answer.epoch, credential, members: this.membersOf(answer), part, note }, whileFollowed);
  }

  private note(subject: string, level: 'info' | 'warn', fields: Record<string, unknown>, message: string): void {
    const key = `${message}|${String(fields.reason ?? '')}`;
    if (this.logged.get(subject) === key) return;
    this.logged.set(subject, key);
    this.logger[level](fields, message);
  }
}

function claimOf(member: VenueMember, answer: VenueAnswer): VenueClaim {
  return { epoch: answer.epoch, fingerprint: member.fingerprint, url: member.url };
}

/** The laptop that outranks every other that answered. */
function bestOf(heard: Heard[]): Heard | undefined {
  return heard.reduce<Heard | undefined>((best, h) => (!best || outranks(claimOf(h.member, h.answer), claimOf(best.member, best.answer)) ? h : best), undefined);
}

function reasonOf(err: unknown): string {
  return err instanceof UpstreamError ? loggedReason(err.message) : 'unexpected failure';
}
