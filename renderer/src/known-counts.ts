import type { QueuedItem, QueuedScan } from './scan-queue';
import { applyChanges, type EventStats, type LocalChange } from './stats';

/**
 * The counters when the server's figures of now cannot be had (issue 44): the last figures it
 * gave, kept per event in localStorage (wiped with the event's other data), plus this station's
 * own scans still waiting in its queue, which those figures cannot include.
 */

/** The server's figures as last fetched, and when (ms). */
export interface KnownCounts {
  stats: EventStats;
  at: number;
}

/** Why the figures on screen are not live: as of `at`, with this station's queued scans counted in. */
export interface CountsAsOf {
  at: number;
  /** Queued admissions of this event counted in (and check-outs taken off). */
  queuedIn: number;
  queuedOut: number;
}

export const knownCountsKey = (eventId: number) => `doorlist.counts.${eventId}`;

export function loadKnownCounts(eventId: number): KnownCounts | undefined {
  try {
    const saved = JSON.parse(localStorage.getItem(knownCountsKey(eventId)) ?? 'null') as KnownCounts | null;
    const stats = saved?.stats;
    const usable = stats && typeof saved.at === 'number' && typeof stats.checked_in === 'number' && typeof stats.total === 'number' && [stats.registration_types, stats.sessions, stats.stations, stats.arrivals].every(Array.isArray);
    return usable ? saved : undefined;
  } catch {
    return undefined;
  }
}

export function saveKnownCounts(eventId: number, stats: EventStats, at: number): void {
  try {
    localStorage.setItem(knownCountsKey(eventId), JSON.stringify({ stats, at } satisfies KnownCounts));
  } catch {
    // A full localStorage costs the counters after an offline reload, nothing else.
  }
}

const isScan = (item: QueuedItem): item is QueuedScan => item.type !== 'walk_in';

/**
 * This event's queued scans that the station decided itself (an admission or a check-out at the
 * event's door), as counter changes. A session scan waits undecided, so it is not counted.
 */
export function queuedChanges(items: readonly QueuedItem[], eventId: number, typeOf: (scan: QueuedScan) => number | undefined): LocalChange[] {
  return items.filter(isScan).flatMap((scan): LocalChange[] => {
    if (scan.eventId !== eventId || (scan.offlineOutcome !== 'checked_in' && scan.offlineOutcome !== 'checked_out')) return [];
    const admitted = scan.offlineOutcome === 'checked_in';
    return [{ at: scan.queuedAt, step: 1, expect: 0, uid: scan.uid, delta: admitted ? 1 : -1, direction: admitted ? 'in' : 'out', typeId: typeOf(scan), station: scan.station, scannedAt: scan.scannedAt }];
  });
}

export interface CountsInput {
  /** The server's figures fetched since this page loaded, with this station's changes counted in. */
  live?: EventStats;
  /** When `live` was fetched (ms). */
  liveAt?: number;
  /** The figures kept from before the page loaded. */
  known?: KnownCounts;
  online: boolean;
  queued: readonly QueuedItem[];
  eventId: number;
  typeOf: (scan: QueuedScan) => number | undefined;
}

/**
 * The figures the door shows, and what marks them when they are not live. Live and reachable:
 * as they are. Live but the server gone since: the live figures (they count this station's
 * scans already), marked as of their fetch. Not fetched since the page loaded (an offline
 * reload): the kept figures plus the queue, walk-ins added to the guests expected, marked.
 */
export function countsOnScreen(input: CountsInput): { stats?: EventStats; asOf?: CountsAsOf } {
  const changes = queuedChanges(input.queued, input.eventId, input.typeOf);
  const queuedIn = changes.filter((c) => c.delta > 0).length;
  const queuedOut = changes.length - queuedIn;
  if (input.live) return { stats: input.live, asOf: input.online || input.liveAt === undefined ? undefined : { at: input.liveAt, queuedIn, queuedOut } };
  if (!input.known) return {};
  const stats = { ...applyChanges(input.known.stats, changes) };
  const walkIns = input.queued.filter((item) => item.type === 'walk_in' && item.eventId === input.eventId);
  if (walkIns.length) {
    stats.total += walkIns.length;
    stats.registration_types = stats.registration_types.map((t) => ({ ...t, total: t.total + walkIns.filter((w) => w.type === 'walk_in' && w.fields.registration_type === t.id).length }));
  }
  return { stats, asOf: { at: input.known.at, queuedIn, queuedOut } };
}
