import type { Db } from '../../db/knex';
import type { EventRow } from '../../db/repositories/events';
import { exportEventToPath, importEventFile, verifyEventFile, type EventFileHeader, type ImportOptions, type ImportResult } from '../event-file';

/**
 * The only place sync touches event files: what travels between a laptop and its upstream is
 * an event file (whole, or the delta of what changed since a cursor), merged by uid with the
 * event-file rules. When the event-file service changes shape, only this adapter follows.
 */

/** Writes the event to `file`: whole, or (with `since`) what changed at or after it. Returns the record counts. */
export async function writeEventChanges(db: Db, event: EventRow, file: string, since?: string): Promise<Record<string, number>> {
  return exportEventToPath(db, event, file, { since });
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

/** True when the file holds nothing but its event record: there is nothing to send or merge. */
export function holdsNoChanges(counts: Record<string, number>): boolean {
  return Object.entries(counts).every(([table, n]) => table === 'events' || n === 0);
}
