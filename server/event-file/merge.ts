import { setTimeout } from 'node:timers/promises';
import type { Conn, Db } from '../../db/knex';
import { sentAtOnce, writeTransaction } from '../../db/write-transaction';
import {
  abandonedImports,
  discardHiddenEvent,
  eventByUid,
  groupExists,
  groupIdByUid,
  insertFileGroup,
  insertHiddenEvent,
  keepImportAlive,
  removeFileGroup,
  revealEvent,
  rowsByUid,
  type ImportingEventRow,
  type Row,
} from '../../db/repositories/event-file-merge';
import { refreshSearchStatistics } from '../../db/search-index';
import { chunks } from '../../db/bulk';
import { ConflictError, NotFoundError, ValidationError } from '../../core/errors';
import { MSG } from '../../core/messages';
import { nowIso } from '../../core/time';
import { EventFileRejected, type ImportOptions, type ImportResult } from './merge-types';
import { MergeApplier } from './merge-apply';
import { DEFS, MergePlan } from './merge-plan';
import { StagedChanges } from './staging';
import { EVENT_FILE_TABLES, EVENT_TABLE_LAYOUTS, EVENT_TABLES, EventRecord, firstProblem, recordSchema, type TableDef } from './tables';
export type { ImportOptions, ImportResult } from './merge-types';

/**
 * An import of an event file, in two steps so that the door never waits behind it:
 * - `add` (every record, in file order) parses and checks the file and stages it, outside
 *   the write that makes it visible. A new event is written in small statements under an
 *   event no one sees yet; a merge only reads, and keeps what would change.
 * - `finish` makes it visible: it reveals the new event in one short transaction, or applies
 *   the kept changes of a merge in paced, journaled turns (merge-apply.ts); the last one ends
 *   the merge (and moves a follower's cursors). A failure at any point, a killed process
 *   included, leaves the event as it was: `abandon` (or the next import, or the next start)
 *   removes what was staged and undoes what was applied.
 * What each record does is the plan's (merge-plan.ts, pure); this file reads and stages.
 */

// Records checked and staged together. A new event's rows are written in statements of up to
// WRITE_ROWS rows, each its own transaction (no one sees them yet), so a scan waits at most for
// one of them. Per statement is what an import pays for (a 100k-guest file: 100 rows a
// statement 12 s of CPU, 250 rows 10.7 s, a whole batch 6.8 s: each commit writes every index
// page it touched again), and what a scan waits behind: at 1,000 rows (and their ten thousand
// search terms) the door's p99 during an import was 470 ms on the bench's loaded 2-core
// machine, so 250 while a door is at work, and the whole batch while none is
// (ImportOptions.doorActive). A batch of long records ends sooner, so what is held in memory
// stays small.
const BATCH = 2000;
const WRITE_ROWS = 250;
// A new event's batches of one table written at once while no door is at work: one in the
// database, the next made ready.
const NEW_EVENT_WRITES_IN_FLIGHT = 2;
// Uids per lookup of a merge.
const LOOKUP_ROWS = 100;
/**
 * How long an import of an event another import is writing waits for that one to finish or to
 * be found dead (its abandonedMs after its last heartbeat, importLiveness) before answering 409, and how often it looks.
 */
const IMPORT_WAIT_MS = 30_000;
const IMPORT_POLL_MS = 250;
const BATCH_BYTES = 16 << 20;
// Records parsed or checked between two turns of the event loop: a few milliseconds of work.
export const PARSE_YIELD = 64;
const LAYOUTS = new Map(EVENT_TABLE_LAYOUTS.map((l) => [l.name, l]));
const SCHEMAS = new Map(EVENT_TABLES.map((d) => [d.name, recordSchema(d)]));

/** One import or merge of an event file, from its checked records to its last turn. */
export class EventMerger {
  private readonly plan: MergePlan;
  private readonly applier: MergeApplier;
  private createdGroupId: number | undefined;
  private groupId = 0;
  /** A merge's changes, in file order, applied by `finish`. */
  private readonly staged = new StagedChanges();
  private pending: { def: TableDef; records: Row[]; bytes: number } | undefined;
  /** Writes under way, oldest first; `writingTable` the table of the last one started. */
  private writing: Promise<void>[] = [];
  private writingTable: TableDef | undefined;
  private position = -1;
  /** Stamps a new event's hidden row while this import is alive (a merge's marker: the applier's). */
  private heartbeat: { stop: () => Promise<void> } | undefined;
  /** The existing event a merge goes into. */
  private localEvent: ImportingEventRow | undefined;

  constructor(
    private readonly db: Db,
    private readonly options: ImportOptions,
  ) {
    this.plan = new MergePlan(options.allowSetupChanges ?? true);
    this.applier = new MergeApplier(db, options, this.plan, () => this.outcome(), nowIso());
  }

  /** `bytes`: the record's size in the file. */
  async add(table: string, record: unknown, bytes = 0): Promise<void> {
    const index = EVENT_FILE_TABLES.indexOf(table);
    if (index < 0) throw new EventFileRejected(`unknown table "${table}"`);
    if (index < this.position || (table === 'events' && this.position === 0)) throw new EventFileRejected(`"${table}" records out of order`);
    if (index > 0 && this.position < 0) throw new EventFileRejected('the event record must come first');
    if (index !== this.position) await this.flush();
    this.position = index;
    if (table === 'events') return this.stageEvent(record);
    this.pending ??= { def: DEFS.get(table)!, records: [], bytes: 0 };
    // Checked as it comes: the file's own object is garbage at once, never copied by the
    // young generation's collections while the batch fills.
    const parsed = SCHEMAS.get(table)!.safeParse(record);
    if (!parsed.success) throw new EventFileRejected(`a ${table} record is invalid (${firstProblem(parsed.error)})`);
    this.pending.records.push(parsed.data as Row);
    this.pending.bytes += bytes;
    if (this.pending.records.length >= BATCH || this.pending.bytes >= BATCH_BYTES) await this.flush();
  }

  /** Makes the import visible in one short transaction. */
  async finish(): Promise<ImportResult> {
    await this.flush();
    await this.settle();
    if (this.position < 0) throw new EventFileRejected('it holds no event');
    if (this.plan.eventCreated) {
      await writeTransaction(this.db, async (trx) => {
        if (!(await revealEvent(trx, this.plan.eventId))) throw new EventFileRejected('the import was interrupted');
        await this.options.withinCommit?.(trx, this.outcome());
      });
      await this.heartbeat?.stop();
    } else {
      await this.applier.applyMerge(this.localEvent!, this.staged);
      await this.staged.close();
    }
    await refreshSearchStatistics(this.db, this.plan.result.created.guests);
    return this.outcome();
  }

  private outcome(): ImportResult {
    return { event_id: this.plan.eventId, event_created: this.plan.eventCreated, group_id: this.groupId, group_created: this.createdGroupId !== undefined, ...this.plan.result };
  }

  /** After a refusal: removes what was staged (a new event's rows, a group made for it). */
  async abandon(): Promise<void> {
    await this.settle().catch(() => undefined);
    await this.staged.close();
    try {
      // Stamped until gone: an import waiting for this one does not clear it alongside. A
      // merge's marker takes what the merge applied with it.
      if (this.plan.eventCreated) await discardHiddenEvent(this.db, this.plan.eventId);
      else if (this.applier.journal) await discardHiddenEvent(this.db, this.applier.journal.mergeId);
    } finally {
      await this.heartbeat?.stop();
      await this.applier.stop();
    }
    if (this.createdGroupId !== undefined) await removeFileGroup(this.db, this.createdGroupId);
  }

  // -------------------------------------------------------------------------------------
  // Staging

  private async stageEvent(record: unknown): Promise<void> {
    const parsed = EventRecord.safeParse(record);
    if (!parsed.success) throw new EventFileRejected(`its event record is invalid (${firstProblem(parsed.error)})`);
    const incoming = parsed.data;
    if (this.options.eventUid !== undefined && incoming.uid !== this.options.eventUid) throw new EventFileRejected('it holds another event');
    const local = await this.eventOnceNoImportRuns(incoming.uid);
    if (local) {
      this.localEvent = local;
      this.plan.eventId = local.id;
      this.groupId = local.group_id;
      this.plan.decideEvent(local, incoming);
      return;
    }
    if (!this.plan.allowSetup) throw new ConflictError({ detail: MSG.eventFileDoorNewEvent });
    const groupId = await this.groupForNewEvent();
    this.groupId = groupId;
    this.plan.eventId = await insertHiddenEvent(this.db, { ...incoming, group_id: groupId });
    this.heartbeat = keepImportAlive(this.db, this.plan.eventId);
    this.plan.eventCreated = true;
    this.plan.result.created.events++;
  }

  /**
   * The event with this uid (undefined if there is none) once no other import is writing it:
   * an import under way, in this process or another, is waited for until it finishes or stops
   * stamping its event (then it is cleared as abandoned), for IMPORT_WAIT_MS at most (then 409).
   */
  private async eventOnceNoImportRuns(uid: string): Promise<ImportingEventRow | undefined> {
    const { scope } = this.options;
    const deadline = Date.now() + (this.options.waitMs ?? IMPORT_WAIT_MS);
    for (;;) {
      // An import a crash left behind no longer holds its event's uid.
      for (const id of await abandonedImports(this.db)) await discardHiddenEvent(this.db, id);
      const local = await eventByUid(this.db, uid);
      if (!local) return undefined;
      // Out of scope answers exactly as absent would for any other route.
      if (scope !== null && !scope.includes(local.group_id)) throw new NotFoundError(MSG.eventNotFound);
      if (local.importing_since === null) return local;
      if (Date.now() >= deadline) throw new ConflictError({ detail: MSG.eventFileImportRunning });
      await setTimeout(IMPORT_POLL_MS);
    }
  }

  /** The group given; else, for an administrator, the file's own group, made here if missing. */
  private async groupForNewEvent(): Promise<number> {
    const { scope, groupId, group } = this.options;
    if (groupId !== undefined) {
      if (!(await groupExists(this.db, groupId)) || (scope !== null && !scope.includes(groupId))) throw new ValidationError({ details: MSG.groupNotFound });
      return groupId;
    }
    if (scope !== null || group === undefined) throw ValidationError.field('group_id', MSG.required);
    const existing = await groupIdByUid(this.db, group.uid);
    if (existing !== undefined) return existing;
    this.createdGroupId = await insertFileGroup(this.db, group);
    return this.createdGroupId;
  }

  /**
   * Stages a batch of checked records (their parents are looked up now) while the next
   * batch is read. With no door at work, a new event's batch is made ready (its rows, their
   * JSON, its guests' search terms) while the batch of the same table before it is still
   * being written, so the database never waits for the next one: their rows name only
   * parents of earlier tables, whose ids are in. Otherwise a write waits for every write
   * before it: while a door is at work its scans queue behind one short statement of the
   * import (a door that starts meanwhile waits once for the whole batches under way, at most
   * two); a merge stages its changes in file order; and a table's staging ends before the
   * next table's parents are looked up.
   */
  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = undefined;
    if (!batch || batch.records.length === 0) return;
    const { def, records } = batch;
    if (!this.plan.eventCreated || def !== this.writingTable || this.options.doorActive?.() !== false) await this.settle();
    else while (this.writing.length >= NEW_EVENT_WRITES_IN_FLIGHT) await this.writing.shift();
    const writing = this.plan.eventCreated ? this.writeNewRecords(def, records) : this.stageChanges(def, records);
    // Awaited by settle() or by a later flush(); a failure meanwhile must not go unhandled.
    writing.catch(() => undefined);
    this.writing.push(writing);
    this.writingTable = def;
  }

  /** Waits for every write under way; the first failure is thrown once none is left running. */
  private async settle(): Promise<void> {
    const writing = this.writing;
    this.writing = [];
    await sentAtOnce(writing);
  }

  /** A new event: the batch is written under the hidden event, each statement committed on its own. */
  private async writeNewRecords(def: TableDef, records: Row[]): Promise<void> {
    const rows = this.plan.newEventRows(def, records);
    const perStatement = this.options.doorActive?.() === false ? rows.length : WRITE_ROWS;
    for (const part of chunks(rows, perStatement)) await this.applier.insertFresh(this.db, def, part);
  }

  /**
   * A merge: each record is looked up (by uid, in this event only) and what stands as it is
   * is counted now; what may change is kept for `finish`, which decides it again inside its
   * transaction.
   */
  private async stageChanges(def: TableDef, records: Row[]): Promise<void> {
    await this.lookUpParents(def, records);
    const locals = new Map((await this.lookUp(def, records.map((r) => r.uid as string))).map((r) => [r.uid as string, r]));
    const changes = this.plan.stage(def, records, locals);
    if (changes.length > 0) await this.staged.push(def.name, changes);
  }

  /**
   * Rows of this table with these uids, read a hundred at a time outside any transaction: on
   * the writer's connection each read is one short statement between the door's scans; on a
   * reader, none is.
   */
  private async lookUp(def: TableDef, uids: string[]): Promise<Row[]> {
    const rows: Row[] = [];
    const reader: Conn = this.options.reader ?? this.db;
    for (const part of chunks(uids, LOOKUP_ROWS)) rows.push(...(await rowsByUid(reader, LAYOUTS.get(def.name)!, part, this.plan.eventId)));
    return rows;
  }

  /**
   * Parents a merged file names but does not hold (a delta file holds only what changed)
   * are looked up in this event. One that is another event's acts as absent: its children
   * are skipped and listed; one that is nowhere makes the file refused.
   */
  private async lookUpParents(def: TableDef, records: Row[]): Promise<void> {
    for (const ref of def.refs) {
      const missing = this.plan.missingParents(def, ref, records);
      if (missing.length === 0) continue;
      this.plan.foundParents(def, ref, missing.length, await this.lookUp(DEFS.get(ref.table)!, missing));
    }
  }
}
