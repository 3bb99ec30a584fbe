import fs from 'node:fs';
import type { Logger } from 'pino';
import type { Db } from '../../db/knex';
import { writeTransaction } from '../../db/write-transaction';
import { findEvent, type EventRow } from '../../db/repositories/events';
import { deltaStart, forgetUpstreamVersions, heldUpstream, isFollowed, keepAuthority, listSyncs, markFailed, markPulled, markPushed, noteUpstreamVersions, recordFindings, type SyncRow } from '../../db/repositories/sync';
import { DomainError } from '../../core/errors';
import { MSG } from '../../core/messages';
import { nowIso } from '../../core/time';
import { tempEventFile } from '../event-file';
import { changesEvent, checkEventFile, holdsNoChanges, mergeEventChanges, recordVersions, writeOwnChanges } from './event-files';
import { DEFAULT_TIMING, Upstream, UpstreamError, type UpstreamTiming } from './upstream';
import { VenueWatch, type VenueWatchOptions } from './venue-watch';
import { loggedReason, safeOrigin } from './log-fields';

/** How often each followed event pushes and pulls: changes cross within two of these. */
export const SYNC_INTERVAL_MS = 1000;
/** A write here starts its event's cycle this soon, so a burst of scans makes one push. */
const NUDGE_DELAY_MS = 50;
/**
 * Deltas reach this far behind their cursor: a change stamped just before a snapshot but
 * committed just after it (or on a clock a little behind) is sent again rather than missed.
 * Merges by uid make the repeat a no-op.
 */
const OVERLAP_MS = 10_000;
/**
 * What the upstream holds is noted for files of at most this many records (a delta, not a
 * whole event): a push then leaves out what came down, or already went up, at its version.
 */
const NOTED_MAX = 5000;
/** After a cycle that ended in `error` (not offline), the next waits this long (DOORLIST_SYNC_ERROR_RETRY_MS), doubling up to the cap. */
const ERROR_RETRY_MS = 1000;
/** The cap, as a multiple of the first wait (30 s shipped): a test that sets a short first wait meets short waits throughout. */
const ERROR_RETRY_MAX_TIMES = 30;

export interface FollowerOptions {
  errorRetryMs?: number;
  /** Watching the venue (issue 47): who this laptop is, and how long an upstream may be silent. */
  venue?: VenueWatchOptions;
}

/** `ms` before a stored cursor; a cursor that names no time (stored by an earlier version) reaches back to the beginning. */
function before(cursor: string, ms: number): string {
  const at = Date.parse(cursor);
  return Number.isFinite(at) ? new Date(Math.max(0, at - ms)).toISOString() : new Date(0).toISOString();
}

/** The state and the message a failed cycle leaves: this laptop's words, never an upstream's body or a statement. */
function failureOf(err: unknown): { state: 'offline' | 'error'; message: string } {
  if (err instanceof UpstreamError) return { state: err.state, message: err.message };
  if (err instanceof DomainError) {
    const first = Object.values(err.body)[0];
    return { state: 'error', message: String(Array.isArray(first) ? first[0] : first) };
  }
  if ((err as { code?: string })?.code === 'SQLITE_FULL' || (err as { code?: string })?.code === 'ENOSPC') return { state: 'error', message: MSG.syncDiskFull };
  return { state: 'error', message: MSG.syncMergeFailed };
}

/**
 * Runs beside the door, never in front of it: one loop re-reads the followed events from the
 * database each tick (so the command line's follow and unfollow take effect too) and runs a
 * pull-then-push cycle per event, one at a time per event. Scans never wait on it: they write
 * locally, and a write answered here starts its event's cycle (`nudge`) without waiting for
 * the tick.
 */
export class SyncFollower {
  private timer: NodeJS.Timeout | undefined;
  /** Cycles under way, by sync id, with the event each follows and what cancels its requests upstream. */
  private readonly running = new Map<number, { eventId: number; cycle: Promise<void>; cancel: AbortController }>();
  /** Syncs written to while their cycle ran: they run once more as it ends. */
  private readonly again = new Set<number>();
  private readonly nudged = new Set<number>();
  private nudgeTimer: NodeJS.Timeout | undefined;
  private readonly states = new Map<number, string>();
  /** Syncs whose last cycle ended in `error`: not tried again before this time, and how long the last wait was. */
  private readonly backoff = new Map<number, { until: number; ms: number }>();
  private stopped = false;
  private readonly stopping = new AbortController();
  /** Ticks of the loop so far, and cycles ended (however they ended): what a test counts instead of waiting on the clock. */
  ticks = 0;
  cyclesEnded = 0;
  private readonly venue: VenueWatch | undefined;
  /** When each sync last greeted its venue, and the upstream it greeted (a new one is greeted at once). */
  private readonly greeted = new Map<number, { at: number; upstream: string }>();
  private readonly errorRetryMs: number;
  private readonly venueProbeMs: number;

  /**
   * `reader` is a second connection to the same database, for the exports and the merges'
   * lookups: they then hold up no scan (WAL on SQLite, MVCC on PostgreSQL).
   */
  constructor(
    private readonly db: Db,
    private readonly reader: Db,
    private readonly logger: Logger,
    private readonly intervalMs = SYNC_INTERVAL_MS,
    private readonly timing: Partial<UpstreamTiming> = {},
    options: FollowerOptions = {},
  ) {
    this.errorRetryMs = options.errorRetryMs ?? ERROR_RETRY_MS;
    this.venueProbeMs = options.venue?.probeMs ?? 0;
    this.venue = options.venue ? new VenueWatch(db, logger, options.venue, timing, this.stopping.signal) : undefined;
  }

  start(): this {
    this.schedule(0);
    return this;
  }

  /**
   * A request here changed `eventId` (LocalWrites): its sync pushes now rather than at the next
   * tick, so another laptop sees a scan about a second sooner.
   */
  nudge(eventId: number): void {
    if (this.stopped) return;
    this.nudged.add(eventId);
    // One read of the (small) syncs table per burst, on the read connection, whatever is followed.
    this.nudgeTimer ??= setTimeout(() => {
      this.nudgeTimer = undefined;
      const events = new Set(this.nudged);
      this.nudged.clear();
      void this.runFollowed((sync) => events.has(sync.event_id), true);
    }, NUDGE_DELAY_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.nudgeTimer);
    this.stopping.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.cycle));
  }

  /**
   * `eventId` is no longer followed (its sync row is gone): cancels its cycle under way, if
   * any, and waits for it to end, so an unfollow never waits on an upstream that does not
   * answer. A cycle checks that its sync is still followed before it pushes, so once this has
   * resolved nothing more of the event goes upstream.
   */
  async forget(eventId: number): Promise<void> {
    const cycles = [...this.running.values()].filter((r) => r.eventId === eventId);
    for (const r of cycles) r.cancel.abort();
    await Promise.allSettled(cycles.map((r) => r.cycle));
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    await this.runFollowed(() => true, false);
    // The venue's upstream looks for a laptop that outranks it (a takeover while it was away).
    await this.venue?.watchUpstreams().catch((err: Error) => this.logger.warn({ reason: loggedReason(err.message) }, 'venue: its laptops could not be asked'));
    this.ticks++;
    this.schedule(this.intervalMs);
  }

  /**
   * Starts a cycle for each followed event `wanted` picks, read afresh (cursors move). A sync
   * whose cycle is running is skipped, or, for a nudge, run once more when that cycle ends.
   */
  private async runFollowed(wanted: (sync: SyncRow) => boolean, rerunIfBusy: boolean): Promise<void> {
    try {
      for (const sync of await listSyncs(this.reader)) if (wanted(sync)) this.startCycle(sync, rerunIfBusy);
    } catch (err) {
      // The database closing under a stopping server, or busy: the next tick tries again.
      if (!this.stopped) this.logger.warn({ err }, 'sync: could not read the followed events');
    }
  }

  private startCycle(sync: SyncRow, rerunIfBusy: boolean): void {
    if (this.stopped) return;
    if ((this.backoff.get(sync.id)?.until ?? 0) > Date.now()) return;
    if (this.running.has(sync.id)) {
      if (rerunIfBusy) this.again.add(sync.id);
      return;
    }
    const cancel = new AbortController();
    const cycle = this.cycle(sync, cancel.signal).finally(() => {
      this.cyclesEnded++;
      this.running.delete(sync.id);
      if (this.again.delete(sync.id)) void this.runFollowed((s) => s.id === sync.id, false);
    });
    this.running.set(sync.id, { eventId: sync.event_id, cycle, cancel });
  }

  private async cycle(sync: SyncRow, cancelled: AbortSignal): Promise<void> {
    const silentMs = this.timing.silentMs ?? DEFAULT_TIMING.silentMs;
    const upstream = new Upstream(sync.url, sync.upstream_key, {
      fingerprint: sync.fingerprint,
      authority: sync.authority_pem,
      followed: true,
      stop: AbortSignal.any([this.stopping.signal, cancelled]),
      // A hung upstream shows as offline while its request is still given a chance to finish (within its deadline).
      onSilent: () => void this.fail(sync, new UpstreamError('offline', MSG.syncSilent(silentMs / 1000))),
      timing: this.timing,
    });
    try {
      const event = await findEvent(this.db, null, sync.event_id);
      if (!event) return;
      // An upstream silent for a while: another laptop of the venue may have taken over; the cycle then runs again towards it.
      if (await this.venue?.rehome(sync, event)) {
        this.again.add(sync.id);
        return;
      }
      // Pull first: an upstream that does not answer fails the cycle before anything is exported.
      await this.pull(sync, event, upstream);
      if (this.venue && this.greetDue(sync)) await this.venue.greet(sync, event, upstream);
      // A sync pinned to an authority before its certificate was kept keeps it now (checked by signature).
      if (sync.fingerprint && !sync.authority_pem && upstream.authority) await keepAuthority(this.db, sync.id, sync.fingerprint, upstream.authority);
      // Unfollowed meanwhile: nothing more goes upstream (forget waits for this cycle).
      if (!(await isFollowed(this.db, sync.id))) return;
      await this.push(sync, event, upstream);
      this.backoff.delete(sync.id);
      this.note(sync, 'ok');
    } catch (err) {
      if (this.stopped || cancelled.aborted) return;
      await this.fail(sync, err);
    }
  }

  /**
   * The venue hello goes every quarter of DOORLIST_VENUE_PROBE_S, not every cycle (a hundred
   * laptops a second were a hello each): the upstream hears from each laptop well within the
   * probe time, and a laptop learns of a takeover within a quarter of it. A sync that follows
   * another upstream now greets it at once.
   */
  private greetDue(sync: SyncRow): boolean {
    const now = Date.now();
    const upstream = `${sync.url} ${sync.remote_event_id}`;
    const last = this.greeted.get(sync.id);
    if (last && last.upstream === upstream && now - last.at < this.venueProbeMs / 4) return false;
    this.greeted.set(sync.id, { at: now, upstream });
    return true;
  }

  private async fail(sync: SyncRow, err: unknown): Promise<void> {
    const { state, message } = failureOf(err);
    if (state === 'error') {
      const ms = Math.min(this.errorRetryMs * ERROR_RETRY_MAX_TIMES, (this.backoff.get(sync.id)?.ms ?? this.errorRetryMs / 2) * 2);
      this.backoff.set(sync.id, { until: Date.now() + ms, ms });
    }
    this.note(sync, state, message, err);
    await markFailed(this.db, sync.id, state, message).catch(() => undefined);
  }

  /**
   * Sends what changed here since the last confirmed push (this laptop's scans, undos, edits,
   * and what its own followers pushed here), never a record the upstream already holds at its
   * version here (what came down in a pull, or went up before); the cursor moves, with the
   * upstream's findings, once it has merged it.
   */
  private async push(sync: SyncRow, event: EventRow, upstream: Upstream): Promise<void> {
    const snapshot = nowIso();
    await this.withFile(async (file) => {
      // What a follower of this laptop pushed here may be older than the cursor: it goes on up too.
      const since = await deltaStart(this.db, event.id, before(sync.push_cursor, OVERLAP_MS), 'push');
      const counts = await writeOwnChanges(this.reader, event, file, since);
      // The event record always travels; it is a change of its own only when edited here since.
      const records = Object.values(counts).reduce((sum, n) => sum + n, 0);
      const nothing = holdsNoChanges(counts) && (event.modified < since || (await heldUpstream(this.reader, event.id, { table: 'events', uid: event.uid, modified: event.modified })));
      const found = nothing ? undefined : await upstream.push(sync.remote_event_id, file, records);
      const sent = found ? await recordVersions(file, NOTED_MAX) : undefined;
      await writeTransaction(this.db, async (trx) => {
        if (found) await recordFindings(trx, event.id, found);
        if (sent) await noteUpstreamVersions(trx, event.id, sent);
        // No later push reaches back past `since` for a record of this laptop's: older notes serve nothing.
        await forgetUpstreamVersions(trx, event.id, since);
        await markPushed(trx, sync, snapshot);
      });
    });
  }

  /**
   * Fetches what changed upstream since the last merged pull and merges it into the followed
   * event only, with the scope of its group: a file about any other event is refused whole.
   * The findings and the cursor commit with the merge, or none of them does.
   */
  private async pull(sync: SyncRow, event: EventRow, upstream: Upstream): Promise<void> {
    await this.withFile(async (file) => {
      const cursor = await upstream.pull(sync.remote_event_id, before(sync.pull_cursor, OVERLAP_MS), file, event.uid);
      const header = await checkEventFile(file);
      if (header.event.uid !== event.uid) throw new UpstreamError('error', MSG.syncOtherEvent);
      if (holdsNoChanges(header.counts) && !(await changesEvent(file, event))) {
        await markPulled(this.db, sync, cursor);
        return;
      }
      const pulled = await recordVersions(file, NOTED_MAX);
      // Noted with the merge for whoever follows this laptop in turn: these changes may be older than their cursor.
      await mergeEventChanges(this.db, file, {
        scope: [event.group_id],
        groupId: event.group_id,
        reader: this.reader,
        arrival: 'pull',
        eventUid: event.uid,
        withinCommit: async (trx, result) => {
          await recordFindings(trx, event.id, result);
          // Whatever the merge kept of them, the upstream holds these versions: this laptop's push leaves them out.
          if (pulled) await noteUpstreamVersions(trx, event.id, pulled);
          await markPulled(trx, sync, cursor);
        },
      });
    });
  }

  private async withFile(work: (file: string) => Promise<void>): Promise<void> {
    const file = tempEventFile();
    try {
      await work(file);
    } finally {
      await fs.promises.rm(file, { force: true });
    }
  }

  /** Logs a change of state once, not every second; the upstream by its origin only, never the key, a failure's text cut short. */
  private note(sync: SyncRow, state: string, message?: string, err?: unknown): void {
    if (this.states.get(sync.id) === state) return;
    this.states.set(sync.id, state);
    const upstream = safeOrigin(sync.url);
    if (state === 'ok') {
      this.logger.info({ event_id: sync.event_id, upstream }, 'sync: following the upstream');
      return;
    }
    const own = err instanceof Error && !(err instanceof UpstreamError) && !(err instanceof DomainError) ? loggedReason(err.message) : undefined;
    this.logger.warn({ event_id: sync.event_id, upstream, state, reason: message === undefined ? undefined : loggedReason(message), ...(own ? { cause: own } : {}) }, 'sync: working alone');
  }
}
