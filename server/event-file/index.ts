import fs from 'node:fs';
import os from 'node:os';
import type { Writable } from 'node:stream';
import type { Db } from '../../db/knex';
import type { EventRow } from '../../db/repositories/events';
import {
  EVENT_FILE_TABLES,
  EventMerger,
  countEventRecords,
  eventRecord,
  eventRecordPages,
  type ImportOptions,
  type ImportResult,
  type TableCounts,
} from '../../db/repositories/event-files';
import { MSG } from '../../core/messages';
import { createTempFile } from '../temp-files';
import { EventFileError, EventFileWriter, readEventRecords, verifyEventFile, EVENT_FILE_EXTENSION } from './format';

export * from './format';
export type { ImportResult } from '../../db/repositories/event-files';

/** Called as work advances: `done` of `total` records. */
export type Progress = (done: number, total: number) => void;

/** A file name people recognise: the event's name, made safe for every file system. */
export function eventFileName(event: Pick<EventRow, 'name' | 'id'>): string {
  const base = event.name.normalize('NFKD').replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || `event-${event.id}`;
  return `${base}${EVENT_FILE_EXTENSION}`;
}

/**
 * Writes one event and everything under it to `out`. It reads inside one transaction, so
 * the file is a consistent snapshot even while the door keeps scanning (writes wait).
 */
export async function exportEventFile(db: Db, event: EventRow, out: Writable, onProgress?: Progress): Promise<TableCounts> {
  return db.transaction(async (trx) => {
    const counts = await countEventRecords(trx, event.id);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const writer = new EventFileWriter(out);
    await writer.header({
      station: os.hostname(),
      exported_at: new Date().toISOString(),
      generator: 'Doorlist',
      event: { uid: event.uid, name: event.name },
      tables: EVENT_FILE_TABLES,
      counts,
    });
    await writer.records('events', [eventRecord(event)]);
    let done = 1;
    for await (const page of eventRecordPages(trx, event.id)) {
      await writer.lines(page.lines);
      done += page.lines.length;
      onProgress?.(done, total);
    }
    await writer.finish();
    return counts;
  });
}

/** Export to a file on disk (written beside it first, renamed when whole). */
export async function exportEventToPath(db: Db, event: EventRow, file: string, onProgress?: Progress): Promise<TableCounts> {
  const partial = `${file}.partial`;
  try {
    const counts = await exportEventFile(db, event, fs.createWriteStream(partial), onProgress);
    await fs.promises.rename(partial, file);
    return counts;
  } finally {
    await fs.promises.rm(partial, { force: true });
  }
}

/**
 * Imports (creates or merges) the event file at `file`. The file is verified first with
 * no database access (format, version, gzip CRC, sha256); the merge then runs in one
 * transaction, so a refusal at any point leaves the database exactly as it was.
 */
export async function importEventFile(db: Db, file: string, options: ImportOptions, onProgress?: Progress): Promise<ImportResult> {
  const header = await verifyEventFile(file);
  const total = Object.values(header.counts).reduce((a, b) => a + b, 0);
  return withLargeCache(db, () => db.transaction(async (trx) => {
    const merger = new EventMerger(trx, options);
    const seen: TableCounts = {};
    let done = 0;
    for await (const { table, record } of readEventRecords(file)) {
      await merger.add(table, record);
      seen[table] = (seen[table] ?? 0) + 1;
      if (++done % 5000 === 0) onProgress?.(done, total);
    }
    for (const table of new Set([...Object.keys(seen), ...Object.keys(header.counts)])) {
      if ((seen[table] ?? 0) !== (header.counts[table] ?? 0)) throw new EventFileError(MSG.eventFileDamaged);
    }
    const result = await merger.finish();
    onProgress?.(total, total);
    return result;
  }));
}

/**
 * A big import writes a hundred thousand random uids into unique indexes: with SQLite's
 * default 2 MB page cache that thrashes. The cache is raised for the import only.
 */
async function withLargeCache<T>(db: Db, work: () => Promise<T>): Promise<T> {
  const [{ cache_size: previous }] = await db.raw('PRAGMA cache_size');
  await db.raw('PRAGMA cache_size = -262144');
  try {
    return await work();
  } finally {
    await db.raw(`PRAGMA cache_size = ${Number(previous)}`);
  }
}

/** A temporary path for an upload or download; the caller removes it. */
export function tempEventFile(): string {
  return createTempFile(EVENT_FILE_EXTENSION);
}
