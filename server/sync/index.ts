import fs from 'node:fs';
import type { Conn, Db } from '../../db/knex';
import type { EventRow } from '../../db/repositories/events';
import { eventByUid, groupIdByUid } from '../../db/repositories/event-file-merge';
import { BEGINNING, countConflicts, countDoubleAdmissions, countPending, findSyncByEvent, insertSync, listConflicts, listDoubleAdmissions, recordFindings, type FindingsPage, type StoredConflict, type StoredDoubleAdmission, type SyncRow } from '../../db/repositories/sync';
import { ConflictError, DomainError, NotFoundError, ValidationError } from '../../core/errors';
import { showFingerprint } from '../../core/fingerprint';
import { MSG } from '../../core/messages';
import { nowIso, toApiDatetime } from '../../core/time';
import { tempEventFile } from '../event-file';
import { checkEventFile, mergeEventChanges } from './event-files';
import { Upstream, UpstreamError, type UpstreamTiming } from './upstream';
import type { Config } from '../config';
import { venueStatus } from './venue';
import { readVenue } from '../../db/repositories/venue';

export { SyncFollower } from './follower';

export interface FollowRequest {
  url: string;
  key: string;
  event_id: number;
  group_id?: number;
  /** 64 lowercase hex digits: the upstream's certificate or its authority (a laptop on the LAN). */
  fingerprint?: string;
}

// Following and previewing are a person waiting: a whole event may take a while to export upstream.
const FOLLOW_IDLE_MS = 30_000;
const PREVIEW_IDLE_MS = 10_000;

/** The exchange bounds the configuration sets (DOORLIST_SYNC_DEADLINE_S, DOORLIST_SYNC_MIN_RATE). */
export function syncTiming(config: Pick<Config, 'syncDeadlineSeconds' | 'syncMinRate'>): Partial<UpstreamTiming> {
  return { deadlineMs: config.syncDeadlineSeconds * 1000, minBytesPerSecond: config.syncMinRate };
}

/**
 * Pulls the upstream's event whole (same uids) into this database and starts following it;
 * an administrator's act (the route's access). The key is checked by this first download and
 * stored only here, with the fingerprint given. The file must hold one event throughout; an
 * event already here is merged only where it already is (in the group named, or the file's).
 */
export async function followEvent(db: Db, request: FollowRequest, timing: Partial<UpstreamTiming> = {}): Promise<{ event_id: number; sync_id: number }> {
  const upstream = new Upstream(request.url, request.key, { fingerprint: request.fingerprint, timing: { ...timing, idleMs: FOLLOW_IDLE_MS } });
  const file = tempEventFile();
  try {
    const startedAt = nowIso();
    const cursor = await upstream.pull(request.event_id, null, file).catch((err) => Promise.reject(followRefusal(err)));
    const header = await checkEventFile(file).catch((err) => Promise.reject(err instanceof DomainError ? ValidationError.field('url', MSG.syncNotDoorlist) : err));
    const existing = await eventByUid(db, header.event.uid);
    if (existing) {
      if (await findSyncByEvent(db, existing.id)) throw new ConflictError({ detail: MSG.syncAlreadyFollowed });
      const fileGroup = header.group ? await groupIdByUid(db, header.group.uid) : undefined;
      if ((request.group_id ?? fileGroup) !== existing.group_id) throw ValidationError.field('group_id', MSG.syncEventElsewhere);
    }
    let syncId = 0;
    const result = await mergeEventChanges(db, file, {
      // An event already here is merged with its own group's scope, never as administrator.
      scope: existing ? [existing.group_id] : null,
      ...(request.group_id === undefined ? {} : { groupId: request.group_id }),
      eventUid: header.event.uid,
      arrival: 'pull',
      withinCommit: async (trx, merged) => {
        await recordFindings(trx, merged.event_id, merged);
        syncId = await insertSync(trx, {
          event_id: merged.event_id,
          url: request.url,
          remote_event_id: request.event_id,
          upstream_key: request.key,
          // A new copy holds only what came down; one already here may hold changes never sent.
          push_cursor: merged.event_created ? startedAt : BEGINNING,
          pull_cursor: cursor,
          fingerprint: request.fingerprint ?? null,
          // The authority the pin named, checked by signature: its next connections trust it alone.
          authority_pem: upstream.authority,
        });
      },
    });
    return { event_id: result.event_id, sync_id: syncId };
  } finally {
    await fs.promises.rm(file, { force: true });
  }
}

/** The events a key sees upstream, and the fingerprint its certificate showed; nothing is stored. */
export async function previewUpstream(request: { url: string; key: string; fingerprint?: string }, timing: Partial<UpstreamTiming> = {}) {
  const upstream = new Upstream(request.url, request.key, { fingerprint: request.fingerprint, timing: { ...timing, idleMs: PREVIEW_IDLE_MS } });
  try {
    const { fingerprint, events } = await upstream.events();
    return { fingerprint, events: events.map(({ id, name, starts, ends, timezone }) => ({ id, name, starts, ends, timezone })) };
  } catch (err) {
    throw followRefusal(err);
  }
}

/** A failed call while following, named on the field the user must correct (this laptop's words only). */
function followRefusal(err: unknown): unknown {
  return err instanceof UpstreamError ? ValidationError.field(err.field, err.message) : err;
}

/** What a status answer carries of each list: the latest few, newest first; the rest by page. */
export const SYNC_STATUS_LATEST = 5;

export interface SyncStatus {
  sync_id: number;
  url: string;
  event_id: number;
  remote_event_id: number;
  state: SyncRow['state'];
  error: string | null;
  fingerprint: string | null;
  last_pull_at: string | null;
  last_push_at: string | null;
  pending: number;
  double_admissions_count: number;
  conflicts_count: number;
  double_admissions: ReturnType<typeof toDoubleAdmission>[];
  conflicts: ReturnType<typeof toConflict>[];
  epoch: number;
  venue: Awaited<ReturnType<typeof venueStatus>>['venue'];
  venue_note: string | null;
}

function toDoubleAdmission(d: StoredDoubleAdmission) {
  return { ...d, checkins: d.checkins.map((c) => ({ ...c, scanned_at: toApiDatetime(c.scanned_at) as string })), found_at: toApiDatetime(d.found_at) as string };
}

function toConflict(c: StoredConflict) {
  return { ...c, found_at: toApiDatetime(c.found_at) as string };
}

/**
 * What the door shows every few seconds: state, when it last heard the upstream, what waits,
 * how many double admissions and conflicts there are and the latest few of each (a door's
 * poll stays small however many an outage left), and the venue as this laptop knows it.
 * Never the key, never the venue credential.
 */
export async function syncStatus(db: Conn, sync: SyncRow): Promise<SyncStatus> {
  const latest = { limit: SYNC_STATUS_LATEST, offset: 0 };
  return {
    sync_id: sync.id,
    url: sync.url,
    event_id: sync.event_id,
    remote_event_id: sync.remote_event_id,
    state: sync.state,
    error: sync.error,
    fingerprint: sync.fingerprint ? showFingerprint(sync.fingerprint) : null,
    last_pull_at: toApiDatetime(sync.last_pull_at),
    last_push_at: toApiDatetime(sync.last_push_at),
    pending: await countPending(db, sync.event_id, sync.push_cursor),
    double_admissions_count: await countDoubleAdmissions(db, sync.event_id),
    conflicts_count: await countConflicts(db, sync.event_id),
    double_admissions: (await listDoubleAdmissions(db, sync.event_id, latest)).map(toDoubleAdmission),
    conflicts: (await listConflicts(db, sync.event_id, latest)).map(toConflict),
    ...(await venueStatus(db, sync.event_id)),
  };
}

/** A page of the sync's double admissions, newest first, with their count. */
export async function syncDoubleAdmissions(db: Db, sync: Pick<SyncRow, 'event_id'>, page: FindingsPage) {
  return { count: await countDoubleAdmissions(db, sync.event_id), results: (await listDoubleAdmissions(db, sync.event_id, page)).map(toDoubleAdmission) };
}

/** A page of the sync's conflicts, newest first, with their count. */
export async function syncConflicts(db: Db, sync: Pick<SyncRow, 'event_id'>, page: FindingsPage) {
  return { count: await countConflicts(db, sync.event_id), results: (await listConflicts(db, sync.event_id, page)).map(toConflict) };
}

/**
 * Where a local event's findings are kept: its sync, or, on the venue's upstream (which follows
 * nothing), its venue: its followers' pushes found them here (issue 47).
 */
export async function findingsOf(db: Db, event: EventRow): Promise<Pick<SyncRow, 'event_id'>> {
  if ((await findSyncByEvent(db, event.id)) || (await readVenue(db, event.id))) return { event_id: event.id };
  throw new NotFoundError(MSG.syncNotFound);
}

/** The sync of a local event (already looked up in the caller's scope). */
export async function syncOf(db: Conn, event: EventRow): Promise<SyncRow> {
  const sync = await findSyncByEvent(db, event.id);
  if (!sync) throw new NotFoundError(MSG.syncNotFound);
  return sync;
}
