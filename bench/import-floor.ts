import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, migrateLatest, type Db } from '../db/knex';
import { LARGE_CACHE_KIB, sqliteBulkInsert } from '../db/bulk';
import { newUid } from '../core/uid';
import { batchSearchTerms } from '../db/search-terms';
import { fullTextEntries, fullTextTokens } from '../db/search-index';
import { round, type Log, type Metric } from './common';

/**
 * SQLite's own time for the rows an import writes (issue 17's floor for its import targets):
 * the statements the imports send (one JSON parameter unpacked by json_each, as db/bulk.ts
 * builds them), of the same sizes and in the same transactions, on a database opened as the
 * server opens it, with only the statements timed (their JSON is built beforehand and the
 * main thread has nothing else to do). What an import takes beyond this is Doorlist's own.
 */

const NOW = new Date().toISOString();
const GUEST_COLUMNS = ['uid', 'created', 'modified', 'event_id', 'registration_type_id', 'first_name', 'last_name', 'email', 'company', 'job_title', 'barcode', 'checked_in_at'];
const SEARCH_COLUMNS = ['rowid', 'terms'];

class StatementClock {
  ms = 0;

  constructor(private readonly db: Db) {}

  /** Runs one bulk insert of `tuples` and adds its time. */
  async insert(table: string, columns: string[], tuples: unknown[][], returning = false): Promise<{ id: number; uid: string }[]> {
    const bindings = [table, ...columns, JSON.stringify(tuples)];
    return this.timed(() => this.db.raw(sqliteBulkInsert(columns, returning), bindings));
  }

  async timed<T>(work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const value = await work();
    this.ms += performance.now() - started;
    return value;
  }
}

function guestTuple(eventId: number, typeId: number, first: string, last: string, email: string, company: string, barcode: string, checkedIn: boolean): unknown[] {
  return [newUid(), NOW, NOW, eventId, typeId, first, last, email, company, 'Engineer', barcode, checkedIn ? NOW : null];
}

/** The batch's search-index rows as the imports build them (batchSearchTerms, then the guests' ids). */
function termTuples(eventId: number, guests: unknown[][], ids: number[]): unknown[][] {
  const fields = guests.map((g) => ({ first_name: g[5] as string, last_name: g[6] as string, email: g[7] as string, company: g[8] as string, barcode: g[10] as string }));
  return fullTextEntries(fullTextTokens(eventId, batchSearchTerms(fields)), ids);
}

/** A new event's rows as an event file brings them: guests and their terms 2,000 a statement, an answer each, half checked in. */
async function eventFileRows(db: Db, eventId: number, typeId: number, questionId: number, guests: number) {
  const clocks = { guests: new StatementClock(db), terms: new StatementClock(db), answers: new StatementClock(db), checkins: new StatementClock(db) };
  const ids: number[] = [];
  for (let start = 0; start < guests; start += 2000) {
    const batch = Array.from({ length: Math.min(2000, guests - start) }, (_, k) => {
      const i = start + k;
      return guestTuple(eventId, typeId, `First${i}`, `Last${i}`, `guest${i}@bench.test`, `Company ${i % 997}`, `BENCH${String(i).padStart(8, '0')}`, i % 2 === 0);
    });
    const inserted = await clocks.guests.insert('guests', GUEST_COLUMNS, batch, true);
    const idOf = new Map(inserted.map((r) => [r.uid, r.id]));
    const batchIds = batch.map((g) => idOf.get(g[0] as string) as number);
    ids.push(...batchIds);
    await clocks.terms.insert('guest_search', SEARCH_COLUMNS, termTuples(eventId, batch, batchIds));
  }
  for (let start = 0; start < ids.length; start += 2000) {
    const answers = ids.slice(start, start + 2000).map((id) => [newUid(), NOW, NOW, id, questionId, '11-50']);
    await clocks.answers.insert('guest_answers', ['uid', 'created', 'modified', 'guest_id', 'question_id', 'text_answer'], answers);
  }
  for (let start = 0; start < ids.length; start += 4000) {
    const checkins = ids.slice(start, start + 4000).filter((_, k) => k % 2 === 0).map((id) => [newUid(), NOW, NOW, eventId, id, 'in', NOW, 'bench']);
    await clocks.checkins.insert('checkins', ['uid', 'created', 'modified', 'event_id', 'guest_id', 'direction', 'scanned_at', 'station'], checkins);
  }
  return clocks;
}

/** A CSV's guests staged 500 a transaction under a hidden event (their terms filed under the event), then moved in one. */
async function csvRows(db: Db, event: { id: number; group_id: number }, typeId: number, guests: number) {
  const clocks = { staging: new StatementClock(db), move: new StatementClock(db) };
  const [staging] = await db('events')
    .insert({ uid: newUid(), created: NOW, modified: NOW, group_id: event.group_id, name: 'CSV staging', starts: '2026-12-01T09:00:00', ends: '2026-12-01T18:00:00', timezone: 'GMT', importing_since: NOW })
    .returning('id');
  const conn = await db.client.acquireConnection();
  const run = (sql: string, bindings: unknown[] = []) => db.raw(sql, bindings as never).connection(conn);
  try {
    for (let start = 0; start < guests; start += 500) {
      const batch = Array.from({ length: Math.min(500, guests - start) }, (_, k) => {
        const i = start + k;
        return guestTuple(staging.id, typeId, `Csv${i}`, `Guest ${i}`, `csv${i}@bench.test`, `Company ${i % 997}, Inc`, `CSV${String(i).padStart(8, '0')}`, false);
      });
      const guestsJson = JSON.stringify(batch);
      await clocks.staging.timed(() => run('BEGIN IMMEDIATE'));
      const inserted: { id: number; uid: string }[] = await clocks.staging.timed(() => run(sqliteBulkInsert(GUEST_COLUMNS, true), ['guests', ...GUEST_COLUMNS, guestsJson]));
      const idOf = new Map(inserted.map((r) => [r.uid, r.id]));
      const termsJson = JSON.stringify(termTuples(event.id, batch, batch.map((g) => idOf.get(g[0] as string) as number)));
      await clocks.staging.timed(() => run(sqliteBulkInsert(SEARCH_COLUMNS, false), ['guest_search', ...SEARCH_COLUMNS, termsJson]));
      await clocks.staging.timed(() => run('COMMIT'));
    }
    await clocks.move.timed(async () => {
      await run('BEGIN IMMEDIATE');
      await run('update guests set event_id = ?, modified = ? where event_id = ?', [event.id, NOW, staging.id]);
      await run('delete from events where id = ?', [staging.id]);
      await run('COMMIT');
    });
  } finally {
    await db.client.releaseConnection(conn);
  }
  return clocks;
}

export async function benchImportFloor(options: { guests?: number; log: Log }): Promise<Metric[]> {
  const guests = options.guests ?? 100_000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-bench-floor-'));
  const db = createDb(path.join(dir, 'floor.sqlite'));
  try {
    await migrateLatest(db);
    await db.raw(`PRAGMA cache_size = -${LARGE_CACHE_KIB}`); // as withLargeCache during an import
    const [group] = await db('groups').insert({ uid: newUid(), created: NOW, modified: NOW, name: 'Floor' }).returning('id');
    const [event] = await db('events')
      .insert({ uid: newUid(), created: NOW, modified: NOW, group_id: group.id, name: 'Floor', starts: '2026-12-01T09:00:00', ends: '2026-12-01T18:00:00', timezone: 'GMT' })
      .returning(['id', 'group_id']);
    const [type] = await db('registration_types').insert({ uid: newUid(), created: NOW, modified: NOW, event_id: event.id, name: 'Delegate', description: '' }).returning('id');
    const [question] = await db('custom_questions').insert({ uid: newUid(), created: NOW, modified: NOW, event_id: event.id, question: 'Company size?', type: 'text' }).returning('id');
    const file = await eventFileRows(db, event.id, type.id, question.id, guests);
    const fileMs = Object.values(file).reduce((sum, c) => sum + c.ms, 0);
    options.log(`  SQLite alone, an event file's rows: ${Object.entries(file).map(([k, c]) => `${k} ${Math.round(c.ms)} ms`).join(', ')}; ${Math.round(fileMs)} ms`);
    // The CSV goes into that event, beside its guests, as the bench's CSV goes beside the seeded ones.
    const csv = await csvRows(db, event, type.id, guests);
    const csvMs = csv.staging.ms + csv.move.ms;
    options.log(`  SQLite alone, a CSV's rows: staging ${Math.round(csv.staging.ms)} ms, the move ${Math.round(csv.move.ms)} ms; ${Math.round(csvMs)} ms`);
    return [
      { section: 'import-floor', name: `SQLite alone: a ${guests / 1000}k event file's rows (new event)`, value: round(fileMs / 1000, 2), unit: 's' },
      { section: 'import-floor', name: `SQLite alone: a ${guests / 1000}k CSV's rows, staged 500 a transaction and moved`, value: round(csvMs / 1000, 2), unit: 's' },
    ];
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
