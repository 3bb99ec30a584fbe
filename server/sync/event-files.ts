import type { Db } from '../../db/knex';
import type { EventRow } from '../../db/repositories/events';
import type { RecordVersion } from '../../db/repositories/sync';
import { exportEventToPath, importEventFile, readEventRecords, verifyEventFile, type EventFileHeader, type ImportOptions, type ImportResult } from '../event-file';

/**
 * The only place sync touches event files: what travels between a laptop and its upstream is
 * an event file (whole, or the delta of what changed since a cursor), merged by uid with the
 * event-file rules. When the event-file service changes shape, only this adapter follows.
 */

/** Writes the event to `file`: whole, or (with `since`) what changed at or after it. Returns the record counts. */
export async function writeEventChanges(db: Db, event: EventRow, file: string, since?: string, omitTables: readonly string[] = []): Promise<Record<string, number>> {
  return exportEventToPath(db, event, file, { since, omitTables });
}

/** A follower's push: what changed here at or after `since`, less what the upstream holds at that version. */
export async function writeOwnChanges(db: Db, event: EventRow, file: string, since: string): Promise<Record<string, number>> {
  return exportEventToPath(db, event, file, { since, unlessHeldUpstream: true });
}

/**
 * Each record's version in a verified file (its event record too), for the notes of what
 * the upstream holds; undefined past `max` records (a whole event: nothing is noted).
 */
export async function recordVersions(file: string, max: number): Promise<RecordVersion[] | undefined> {
  const versions: RecordVersion[] = [];
  for await (const records of readEventRecords(file)) {
    for (const { table, record } of records) {
      if (versions.length === max) return undefined;
      const { uid, modified } = record as Record<string, unknown>;
      if (typeof uid === 'string' && typeof modified === 'string') versions.push({ table, uid, modified });
    }
  }
  return versions;
}

/** Checks the file whole (format, version, checksum) before anything reads it. */
export function checkEventFile(file: string): Promise<EventFileHeader> {
  return verifyEventFile(file);
}

/**
 * Merges a verified file; a refusal leaves the database as it was (ImportOptions: the scope,
 * where a new event goes, the event the file must hold, what commits with the merge).
 */
export function mergeEventChanges(db: Db, file: string, options: ImportOptions): Promise<ImportResult> {
  return importEventFile(db, file, options);
}

/** The event's fields a file carries in its event record (a delta carries it whatever changed). */
const EVENT_FIELDS = ['name', 'starts', 'ends', 'timezone'] as const;

/**
 * Whether a verified file's event record is a later version of `event` with other fields (a
 * rename upstream): such a file is merged even when it holds nothing else.
 */
export async function changesEvent(file: string, event: EventRow): Promise<boolean> {
  for await (const records of readEventRecords(file)) {
    for (const { table, record } of records) {
      if (table !== 'events') return false;
      const incoming = record as Record<string, unknown>;
      return typeof incoming.modified === 'string' && incoming.modified > event.modified && EVENT_FIELDS.some((k) => incoming[k] !== event[k]);
    }
  }
  return false;
}

/** True when the file holds nothing but its event record: there is nothing to send or merge. */
export function holdsNoChanges(counts: Record<string, number>): boolean {
  return Object.entries(counts).every(([table, n]) => table === 'events' || n === 0);
}
