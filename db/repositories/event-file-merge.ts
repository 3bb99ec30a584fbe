import type { Conn, Db } from '../knex';
import { dialectOf } from '../dialect';
import { chunks, insertRows, selectByValues } from '../bulk';
import { newRecord } from '../records';
import { nowIso } from '../../core/time';
import type { EventRow } from './events';
import type { GroupRow } from './groups';
import type { TableLayout } from './event-file-export';
import { writeTransaction } from '../write-transaction';
import { forgetMerges, undoMerge } from './merge-journal';
import { newUid } from '../../core/uid';

/** The SQL an event-file import needs; the merge policy itself is the server's (server/event-file/merge.ts). */

export type Row = Record<string, unknown>;

const BATCH = 500;
/**
 * A running import stamps its hidden event's `importing_since` every `heartbeatMs`
 * (`keepImportAlive`), so the stamp tells a live import from one a crash or a killed process
 * left behind, from any process on the database; one silent for `abandonedMs` (five
 * heartbeats missed) is taken for dead and cleared by the next one.
 */
export interface ImportLiveness {
  heartbeatMs: number;
  abandonedMs: number;
}

// Per database handle, as every import through it must agree: the server sets it from its
// configuration (importAbandonedMs) when it opens the database; anything else (the command
// line, a bench) gets the shipped ten seconds.
const LIVENESS = new WeakMap<Db, ImportLiveness>();
const SHIPPED_ABANDONED_MS = 10_000;

/** Imports through `db` are taken for dead after `abandonedMs` of silence, and stamp five times as often. */
export function setImportLiveness(db: Db, abandonedMs: number): void {
  LIVENESS.set(db, { abandonedMs, heartbeatMs: abandonedMs / 5 });
}

export function importLiveness(db: Db): ImportLiveness {
  return LIVENESS.get(db) ?? { abandonedMs: SHIPPED_ABANDONED_MS, heartbeatMs: SHIPPED_ABANDONED_MS / 5 };
}

export type ImportingEventRow = EventRow & { importing_since: string | null };

/** The event with this uid, whether or not an import is still writing it. */
export async function eventByUid(db: Conn, uid: string): Promise<ImportingEventRow | undefined> {
  return db('events').where({ uid }).first();
}

export async function groupIdByUid(db: Conn, uid: string): Promise<number | undefined> {
  const row = await db('groups').where({ uid }).first('id');
  return row?.id;
}

export async function groupExists(db: Conn, id: number): Promise<boolean> {
  return (await db('groups').where({ id }).first('id')) !== undefined;
}

/** A group as an event file carries it, with the same uid, at the top level. */
export async function insertFileGroup(db: Conn, group: Pick<GroupRow, 'uid' | 'name' | 'type' | 'email' | 'phone' | 'website'>): Promise<number> {
  const [row] = await db('groups').insert({ ...newRecord(), ...group, parent_id: null }).returning('id');
  return row.id;
}

/** A group made for an import that did not go through, unless something else now uses it. */
export async function removeFileGroup(db: Conn, id: number): Promise<void> {
  const used = await db('events').where({ group_id: id }).first('id');
  const child = await db('groups').where({ parent_id: id }).first('id');
  const keys = await db('api_keys').where({ group_id: id }).first('id');
  if (!used && !child && !keys) await db('groups').where({ id }).delete();
}

/** A new event no one sees until `revealEvent`. */
export async function insertHiddenEvent(db: Conn, fields: Omit<EventRow, 'id'>): Promise<number> {
  const [row] = await db('events').insert({ ...fields, importing_since: nowIso() }).returning('id');
  return row.id;
}

/**
 * Stamps the hidden event `id` now, every heartbeat (importLiveness) until `stop`: one single-row
 * UPDATE of its own (no transaction held open), queued behind the writes under way like any
 * other, and the next one only once it has answered. `stop` waits for a stamp under way.
 */
export function keepImportAlive(db: Db, id: number): { stop: () => Promise<void> } {
  const { heartbeatMs } = importLiveness(db);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let stamping: Promise<void> = Promise.resolve();
  const beat = () => {
    stamping = db('events')
      .where({ id })
      .whereNotNull('importing_since')
      .update({ importing_since: nowIso() })
      .then(
        () => undefined,
        // A stamp that failed (the database busy or going away) is retried by the next beat.
        () => undefined,
      )
      .then(() => {
        if (!stopped) schedule();
      });
  };
  const schedule = () => {
    timer = setTimeout(beat, heartbeatMs);
    // A process with nothing else to do does not stay up for it.
    timer.unref();
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await stamping;
    },
  };
}

/** Compare-and-set: answers false when the hidden event is gone (cleared as abandoned). */
export async function revealEvent(db: Conn, id: number): Promise<boolean> {
  return (await db('events').where({ id }).whereNotNull('importing_since').update({ importing_since: null })) === 1;
}

/**
 * The hidden event that marks a merge into `event` as under way (merge-journal.ts): its
 * journal's notes are filed under its id, and it is stamped while the merge runs.
 */
export async function insertMergeMarker(db: Conn, event: EventRow): Promise<number> {
  const now = nowIso();
  const { group_id, name, starts, ends, timezone } = event;
  return insertHiddenEvent(db, { uid: newUid(), created: now, modified: now, group_id, name, starts, ends, timezone });
}

/** Compare-and-set, in the merge's last transaction: answers false when the marker was cleared as abandoned (and the merge undone). */
export async function endMerge(trx: Conn, markerId: number): Promise<boolean> {
  return (await trx('events').where({ id: markerId }).whereNotNull('importing_since').delete()) === 1;
}

/**
 * Removes a hidden event and everything under it, a few thousand guests per transaction
 * (their answers, scans and search terms go with them), so the door is never held long.
 * A merge's marker first has what the merge applied put back (undoMerge).
 */
export async function discardHiddenEvent(db: Db, id: number): Promise<void> {
  if (await db('events').where({ id }).whereNotNull('importing_since').first('id')) await undoMerge(db, id);
  for (;;) {
    const removed = await writeTransaction(db, async (trx) => {
      const ids = (await trx('guests').where({ event_id: id }).limit(2000).pluck('id')) as number[];
      if (ids.length > 0) await trx('guests').whereIn('id', ids).delete();
      return ids.length;
    });
    if (removed === 0) break;
  }
  await db('events').where({ id }).whereNotNull('importing_since').delete();
}

/**
 * Clears what imports and merges a crash or a killed process left (their stamps stale): a new
 * event's rows removed, a merge undone; then forgets the journal of merges that finished.
 */
export async function clearAbandonedImports(db: Db): Promise<void> {
  for (const id of await abandonedImports(db)) await discardHiddenEvent(db, id);
  await forgetMerges(db);
}

/** How long after start-up what a dead process left is sure to look abandoned. */
export function abandonedAfterMs(db: Db): number {
  const { abandonedMs, heartbeatMs } = importLiveness(db);
  return abandonedMs + heartbeatMs;
}

/** Hidden events whose import stopped stamping them (a crash, a killed process). */
export async function abandonedImports(db: Db): Promise<number[]> {
  const before = new Date(Date.now() - importLiveness(db).abandonedMs).toISOString();
  return (await db('events').whereNotNull('importing_since').where('importing_since', '<', before).pluck('id')) as number[];
}

export async function updateEventRecord(db: Conn, id: number, fields: Partial<EventRow>): Promise<void> {
  await db('events').where({ id }).update(fields);
}

/**
 * The rows with these uids, each with `owner_event_id`: the event it belongs to (its own,
 * or its parent's for a child table), so a uid of another event is never taken for one here.
 * A table whose uids are unique per event answers this event's rows only.
 */
export async function rowsByUid(db: Conn, layout: TableLayout, uids: string[], eventId: number): Promise<Row[]> {
  return selectByValues(db, `${layout.name} as t`, 't.uid', uids, (q) => {
    if (layout.uidPerEvent) return q.where('t.event_id', eventId).select('t.*', 't.event_id as owner_event_id');
    if (layout.onEvent) return q.select('t.*', 't.event_id as owner_event_id');
    return q.leftJoin(`${layout.refs[0].table} as owner`, 'owner.id', `t.${layout.refs[0].column}`).select('t.*', 'owner.event_id as owner_event_id');
  });
}

export async function updateRow(db: Conn, table: string, id: number, changes: Row): Promise<void> {
  await db(table).where({ id }).update(changes);
}

/** Rows of `layout` whose natural key equals one of `rows`'. */
export async function rowsByNaturalKey(db: Conn, layout: TableLayout, rows: Row[]): Promise<Row[]> {
  const keys = layout.natural!;
  const out: Row[] = [];
  for (const part of chunks(rows, Math.floor(BATCH / keys.length))) {
    out.push(...((await db(layout.name).whereIn(keys, part.map((r) => keys.map((k) => r[k])) as never).select('id', 'uid', ...keys)) as Row[]));
  }
  return out;
}

export { insertRows };

/** The `{id, uid}` of children of these parents. */
export async function childrenOf(db: Conn, table: string, column: string, parentIds: number[]): Promise<{ id: number; uid: string }[]> {
  const out: { id: number; uid: string }[] = [];
  for (const part of chunks(parentIds, BATCH)) out.push(...((await db(table).whereIn(column, part).select('id', 'uid')) as { id: number; uid: string }[]));
  return out;
}


/** Each guest's standing event-level scans, oldest first, and the guests themselves. */
export async function standingDoorScans(db: Conn, eventId: number, guestIds: number[]): Promise<{ scans: Row[]; guests: Row[] }> {
  // Each guest's scans by the index led by guest_id, not among every scan of the event.
  const scans = (await dialectOf(db)
    .whereInUnindexed(db('checkins'), 'event_id', [eventId])
    .whereIn('guest_id', guestIds)
    .whereNull('session_id')
    .whereNull('undone_at')
    .orderBy([{ column: 'guest_id' }, { column: 'scanned_at' }, { column: 'id' }])
    .select('id', 'uid', 'guest_id', 'direction', 'scanned_at', 'station')) as Row[];
  const guests = (await db('guests').whereIn('id', guestIds).select('id', 'uid', 'first_name', 'last_name', 'checked_in_at')) as Row[];
  return { scans, guests };
}
