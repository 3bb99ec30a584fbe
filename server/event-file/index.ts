import fs from 'node:fs';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import os from 'node:os';
import type { Writable } from 'node:stream';
import { readSnapshot, type Db } from '../../db/knex';
import type { EventRow } from '../../db/repositories/events';
import { withLargeCache } from '../../db/bulk';
import { eventGroupRecord, eventRecord, eventRecordIds, eventRecordPages, type TableCounts } from '../../db/repositories/event-file-export';
import { MSG } from '../../core/messages';
import { createTempFile } from '../temp-files';
import { EventFileError, EventFileWriter, readEventRecords, verifyEventFile, EVENT_FILE_EXTENSION } from './format';
import { EventMerger, PARSE_YIELD, type ImportOptions, type ImportResult } from './merge';
import { EVENT_FILE_TABLES, EVENT_TABLE_LAYOUTS } from './tables';

export * from './format';
export { DOOR_HIDDEN_TABLES } from './tables';
export type { ImportOptions, ImportResult } from './merge';

/** Called as work advances: `done` of `total` records. */
export type Progress = (done: number, total: number) => void;

export interface ExportOptions {
  /** A delta: only what changed at or after this stored time. */
  since?: string;
  onProgress?: Progress;
  /** Tables left out of the file: what the caller's role may not read (DOOR_HIDDEN_TABLES). */
  omitTables?: readonly string[];
  /** A follower's push: records its upstream holds at their version here are left out. */
  unlessHeldUpstream?: boolean;
}

/** A file name people recognise: the event's name, made safe for every file system. */
export function eventFileName(event: Pick<EventRow, 'name' | 'id'>): string {
  const base = event.name.normalize('NFKD').replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || `event-${event.id}`;
  return `${base}${EVENT_FILE_EXTENSION}`;
}

/**
 * Writes one event and everything under it to `out`, from one consistent snapshot read on
 * `reader`: given a connection of its own, the door's writes go on meanwhile.
 */
export async function exportEventFile(reader: Db, event: EventRow, out: Writable, options: ExportOptions = {}): Promise<TableCounts> {
  const { since, onProgress, omitTables = [], unlessHeldUpstream } = options;
  const layouts = EVENT_TABLE_LAYOUTS.filter((layout) => !omitTables.includes(layout.name));
  return readSnapshot(reader, async (trx) => {
    const ids = await eventRecordIds(trx, layouts, event.id, { since, unlessHeldUpstream });
    const counts: TableCounts = { events: 1 };
    for (const [table, list] of ids) counts[table] = list.length;
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const writer = new EventFileWriter(out);
    await writer.header({
      station: os.hostname(),
      exported_at: new Date().toISOString(),
      generator: 'Doorlist',
      event: { uid: event.uid, name: event.name },
      group: await eventGroupRecord(trx, event),
      ...(since === undefined ? {} : { since }),
      tables: EVENT_FILE_TABLES,
      counts,
    });
    await writer.records('events', [eventRecord(event)]);
    let done = 1;
    for await (const page of eventRecordPages(trx, layouts, ids)) {
      await writer.lines(page.lines);
      done += page.lines.length;
      onProgress?.(done, total);
    }
    await writer.finish();
    return counts;
  });
}

/** Export to a file on disk (written beside it first, renamed when whole). */
export async function exportEventToPath(reader: Db, event: EventRow, file: string, options: ExportOptions = {}): Promise<TableCounts> {
  const partial = `${file}.partial`;
  try {
    const counts = await exportEventFile(reader, event, fs.createWriteStream(partial, { mode: 0o600 }), options);
    await fs.promises.rename(partial, file);
    return counts;
  } finally {
    await fs.promises.rm(partial, { force: true });
  }
}

/**
 * Imports (creates or merges) the event file at `file`. The file is verified first with no
 * database access (format, version, bounds, gzip CRC, sha256); the merge service then
 * checks and stages every record outside the write that makes the import visible, and a
 * refusal at any point leaves the database as it was.
 */
export async function importEventFile(db: Db, file: string, options: ImportOptions, onProgress?: Progress): Promise<ImportResult> {
  const header = await verifyEventFile(file);
  const total = Object.values(header.counts).reduce((a, b) => a + b, 0);
  const merger = new EventMerger(db, { ...options, group: options.group ?? header.group });
  return withLargeCache(db, async () => {
    try {
      const seen: TableCounts = {};
      let done = 0;
      for await (const records of readEventRecords(file)) {
        for (const { table, record, bytes } of records) {
          await merger.add(table, record, bytes);
          seen[table] = (seen[table] ?? 0) + 1;
          if (++done % 5000 === 0) onProgress?.(done, total);
          // A chunk is a megabyte of inflated file: the door's scans go between its records.
          else if (done % PARSE_YIELD === 0) await yieldToLoop();
        }
      }
      for (const table of new Set([...Object.keys(seen), ...Object.keys(header.counts)])) {
        if ((seen[table] ?? 0) !== (header.counts[table] ?? 0)) throw new EventFileError(MSG.eventFileDamaged);
      }
      const result = await merger.finish();
      onProgress?.(total, total);
      return result;
    } catch (err) {
      await merger.abandon();
      throw err;
    }
  });
}

/** A temporary path for an upload or download, readable by this user only; the caller removes it. */
export function tempEventFile(): string {
  return createTempFile(EVENT_FILE_EXTENSION);
}
