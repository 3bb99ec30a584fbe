import fs from 'node:fs';
import type { Db } from '../../db/knex';
import type { EventRow } from '../../db/repositories/events';
import type { GroupScope } from '../../db/repositories/groups';
import {
  countPending,
  findSyncByEvent,
  findSyncByEventUid,
  insertSync,
  listConflicts,
  listDoubleAdmissions,
  recordConflicts,
  recordDoubleAdmissions,
  type SyncRow,
} from '../../db/repositories/sync';
import { ConflictError, NotFoundError, ValidationError } from '../../core/errors';
import { MSG } from '../../core/messages';
import { nowIso, toApiDatetime } from '../../core/time';
import { tempEventFile } from '../event-file';
import { checkEventFile, mergeEventChanges } from './event-files';
import { Upstream, UpstreamError } from './upstream';

export { SyncFollower } from './follower';

export interface FollowRequest {
  url: string;
  key: string;
  event_id: number;
  group_id?: number;
}

/** Where the followed event may land here: the caller's groups, and the group a new event takes. */
export interface FollowTarget {
  scope: GroupScope;
  groupId?: number;
}

// Before this cursor every local change has been pushed; the epoch pushes everything.
const BEGINNING = '1970-01-01T00:00:00.000Z';

/**
 * Pulls the upstream's event whole (same uids) into this database and starts following it.
 * The key is checked by this first download and stored only here.
 */
export async function followEvent(db: Db, request: FollowRequest, target: FollowTarget): Promise<{ event_id: number; sync_id: number }> {
  const upstream = new Upstream(request.url, request.key);
  const file = tempEventFile();
  try {
    const startedAt = nowIso();
    let cursor: string;
    try {
      cursor = await upstream.pull(request.event_id, null, file);
    } catch (err) {
      throw followRefusal(err);
    }
    const header = await checkEventFile(file);
    if (await findSyncByEventUid(db, header.event.uid)) throw new ConflictError({ detail: MSG.syncAlreadyFollowed });
    const result = await mergeEventChanges(db, file, { scope: target.scope, groupId: request.group_id ?? target.groupId, arrival: 'pull' });
    await recordConflicts(db, result.event_id, result.conflicts);
    await recordDoubleAdmissions(db, result.event_id, result.double_admissions);
    const syncId = await insertSync(db, {
      event_id: result.event_id,
      url: request.url,
      remote_event_id: request.event_id,
      upstream_key: request.key,
      // A new copy holds only what came down; one already here may hold changes never sent.
      push_cursor: result.event_created ? startedAt : BEGINNING,
      pull_cursor: cursor,
    });
    return { event_id: result.event_id, sync_id: syncId };
  } finally {
    await fs.promises.rm(file, { force: true });
  }
}

/** A failed first download, named on the field the user must correct. */
function followRefusal(err: unknown): unknown {
  if (!(err instanceof UpstreamError)) return err;
  if (err.status === 401 || err.status === 403) return ValidationError.field('key', err.message);
  if (err.status === 404) return ValidationError.field('event_id', err.message);
  return ValidationError.field('url', err.message);
}

export interface SyncStatus {
  sync_id: number;
  url: string;
  event_id: number;
  remote_event_id: number;
  state: SyncRow['state'];
  error: string | null;
  last_pull_at: string | null;
  last_push_at: string | null;
  pending: number;
  double_admissions: Awaited<ReturnType<typeof listDoubleAdmissions>>;
  conflicts: Awaited<ReturnType<typeof listConflicts>>;
}

/** What the door shows: state, when it last heard the upstream, what waits, what clashed. Never the key. */
export async function syncStatus(db: Db, sync: SyncRow): Promise<SyncStatus> {
  const admissions = await listDoubleAdmissions(db, sync.event_id);
  const conflicts = await listConflicts(db, sync.event_id);
  return {
    sync_id: sync.id,
    url: sync.url,
    event_id: sync.event_id,
    remote_event_id: sync.remote_event_id,
    state: sync.state,
    error: sync.error,
    last_pull_at: toApiDatetime(sync.last_pull_at),
    last_push_at: toApiDatetime(sync.last_push_at),
    pending: await countPending(db, sync.event_id, sync.push_cursor),
    double_admissions: admissions.map((d) => ({ ...d, checkins: d.checkins.map((c) => ({ ...c, scanned_at: toApiDatetime(c.scanned_at) as string })), found_at: toApiDatetime(d.found_at) as string })),
    conflicts: conflicts.map((c) => ({ ...c, found_at: toApiDatetime(c.found_at) as string })),
  };
}

/** The sync of a local event (already looked up in the caller's scope). */
export async function syncOf(db: Db, event: EventRow): Promise<SyncRow> {
  const sync = await findSyncByEvent(db, event.id);
  if (!sync) throw new NotFoundError(MSG.syncNotFound);
  return sync;
}
