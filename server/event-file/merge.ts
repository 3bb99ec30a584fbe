import { setTimeout } from 'node:timers/promises';
import type { Conn, Db, Trx } from '../../db/knex';
import type { GroupScope } from '../../db/repositories/groups';
import { isIntegrityViolation, isUniqueViolation } from '../../db/errors';
import { sentAtOnce, writeTransaction } from '../../db/write-transaction';
import {
  abandonedImports,
  childrenOf,
  discardHiddenEvent,
  endMerge,
  eventByUid,
  groupExists,
  groupIdByUid,
  insertFileGroup,
  insertHiddenEvent,
  insertMergeMarker,
  insertRows,
  keepImportAlive,
  removeFileGroup,
  revealEvent,
  rowsByNaturalKey,
  rowsByUid,
  updateEventRecord,
  updateRow,
  type ImportingEventRow,
  type Row,
} from '../../db/repositories/event-file-merge';
import type { TableCounts } from '../../db/repositories/event-file-export';
import { forgetMerge, MergeJournal } from '../../db/repositories/merge-journal';
import { replaceSearchTerms } from '../../db/repositories/guests';
import { codeHolders, type CodeHolderRow } from '../../db/repositories/guest-codes';
import { CODE_COLUMNS, mergeCodeResolution, type CodeColumn, type GuestCodes } from '../../core/guest-codes';
import { fileSearchTerms, refreshSearchStatistics } from '../../db/search-index';
import { batchSearchTerms, type BatchTerms } from '../../db/search-terms';
import { alongside, chunks } from '../../db/bulk';
import { TurnPacer, turnMs } from '../../db/turns';
import { recordArrival, type ArrivalVia } from '../../db/repositories/sync';
import { ConflictError, NotFoundError, ValidationError } from '../../core/errors';
import { MSG } from '../../core/messages';
import { nowIso } from '../../core/time';
import { refreshDoorState, type DoubleAdmission } from './door-state';
export type { DoubleAdmission } from './door-state';
import { StagedChanges } from './staging';
import { EVENT_FILE_TABLES, EVENT_TABLE_LAYOUTS, EVENT_TABLES, EventRecord, firstProblem, recordSchema, type GroupRecord, type TableDef } from './tables';

/**
 * The merge policy of event files, as a service over the repositories' SQL.
 *
 * An import runs in two steps so that the door never waits behind it:
 * - `add` (every record, in file order) parses and checks the file and stages it, outside
 *   the write that makes it visible. A new event is written in small statements under an
 *   event no one sees yet; a merge only reads, and keeps what would change.
 * - `finish` makes it visible: it reveals the new event in one short transaction, or applies
 *   the kept changes of a merge in short transactions that take turns with the door's scans,
 *   each noting what it changed in the merge's journal (db/repositories/merge-journal.ts);
 *   the last one ends the merge (and moves a follower's cursors). A failure at any point,
 *   a killed process included, leaves the event as it was: `abandon` (or the next import,
 *   or the next start) removes what was staged and undoes what was applied.
 * Records are matched by uid within the event being merged only: a uid of another event's
 * record (or of a child of one) acts as absent here and is listed as a conflict.
 */

/** The file is refused as a whole; nothing it brought stays. */
export class EventFileRejected extends ValidationError {
  constructor(reason: string) {
    super({ detail: MSG.eventFileInvalid(reason) });
  }
}

export interface ImportConflict {
  table: string;
  uid: string;
  kind: 'barcode' | 'nfc_tag' | 'code' | 'other_event' | 'setup_change';
  value?: string;
  existing_id?: number;
  existing_uid?: string;
  resolution: string;
  guest?: { uid: string; first_name: string; last_name: string };
  existing_guest?: { id: number; uid: string; first_name: string; last_name: string };
}

export interface ImportResult {
  event_id: number;
  event_created: boolean;
  /** The event's group here. */
  group_id: number;
  /** The group was made from the file (an administrator's import into a laptop that lacked it). */
  group_created: boolean;
  created: TableCounts;
  updated: TableCounts;
  unchanged: TableCounts;
  skipped: TableCounts;
  /** Answers, tags and links removed because the later version of their record lacks them. */
  deleted: TableCounts;
  checkins_added: number;
  conflicts: ImportConflict[];
  double_admissions: DoubleAdmission[];
}

export interface ImportOptions {
  /** Groups the caller may see (`null`: all, an administrator). */
  scope: GroupScope;
  /** Where a new event goes. Without it an administrator's new event goes into the file's group. */
  groupId?: number;
  /** The event's group as the file carries it (its header). */
  group?: GroupRecord;
  /**
   * False for a door role (DESIGN "Identity"): only check-ins, undos and new guests (with
   * their answers) are taken; every other change is listed as a conflict and not applied,
   * and a file of an event not here is refused. Default true.
   */
  allowSetupChanges?: boolean;
  /** How long to wait for another import of the same event (IMPORT_WAIT_MS when unset; tests set it shorter). */
  waitMs?: number;
  /**
   * Whether a door is writing to this database now (LocalWrites.doorActive). A new event's rows
   * go in short transactions, so a scan never waits long behind one, unless this answers false:
   * then a batch's rows go in one, the next batch is made ready while it is written, and the
   * import takes about two thirds of the time.
   * Default: a door may be at work.
   */
  doorActive?: () => boolean;
  /**
   * Where a merge reads while it checks (a read connection of the same database, e.g. the
   * server's), so the checks take nothing from the writer the door uses. Default: the writer.
   */
  reader?: Conn;
  /**
   * How the file came (default 'push': an import, or a follower's push to this server; 'pull':
   * what this server's follower fetched from its upstream). A merge that changes anything
   * notes it in its own transaction (sync_arrivals), so the deltas that followers pull, and
   * this laptop's own push upstream, reach back for the file's changes older than their
   * cursors: check-ins carried in on a USB stick go on to the central server too.
   */
  arrival?: ArrivalVia;
  /**
   * The uid of the event the file must hold (a follower's pull, a push to one event): a file
   * whose event record is another event's is refused whole, before anything is written.
   */
  eventUid?: string;
  /**
   * Runs inside the transaction that makes the import visible, with its result: what must
   * commit with the merge or not at all (a follower's conflicts, double admissions, cursor).
   */
  withinCommit?: (trx: Trx, result: ImportResult) => Promise<void>;
}

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
// A merge's staged records are applied in turns (db/turns.ts) of about turnMs each while a
// door is at work (a changed guest is a few statements: its row, its search terms, its note),
// between these; a whole batch per transaction while none is.
const MIN_APPLY_ROWS = 5;
const MAX_APPLY_ROWS = 500;
// A new event's batches of one table written at once while no door is at work: one in the
// database, the next made ready.
const NEW_EVENT_WRITES_IN_FLIGHT = 2;
// Uids per lookup of a merge.
const LOOKUP_ROWS = 100;
/**
 * How long an import of an event another import is writing waits for that one to finish or to
 * be found dead (ABANDONED_MS after its last heartbeat) before answering 409, and how often it looks.
 */
const IMPORT_WAIT_MS = 30_000;
const IMPORT_POLL_MS = 250;
const BATCH_BYTES = 16 << 20;
// Records parsed or checked between two turns of the event loop: a few milliseconds of work.
export const PARSE_YIELD = 64;
const REF_TABLES = new Set(EVENT_TABLES.flatMap((t) => t.refs.map((r) => r.table)));
const DEFS = new Map(EVENT_TABLES.map((d) => [d.name, d]));
const LAYOUTS = new Map(EVENT_TABLE_LAYOUTS.map((l) => [l.name, l]));
const SCHEMAS = new Map(EVENT_TABLES.map((d) => [d.name, recordSchema(d)]));
const REF_KEYS = new Map(EVENT_TABLES.map((d) => [d.name, new Set(d.refs.map((r) => r.key))]));
/** Owned child table -> its parent table and column. */
const OWNED = new Map(EVENT_TABLES.filter((d) => d.owned).map((d) => [d.name, { parent: d.refs[0].table, column: d.refs[0].column }]));
const OWNERS = new Set([...OWNED.values()].map((o) => o.parent));

function emptyCounts(): TableCounts {
  return Object.fromEntries(EVENT_FILE_TABLES.map((t) => [t, 0]));
}

/** A stored value as a file holds it: PostgreSQL reads its booleans as true/false, files hold 0/1. */
function asInFile(value: unknown): unknown {
  return typeof value === 'boolean' ? Number(value) : (value ?? null);
}

function sameContent(def: TableDef, local: Row, incoming: Row): boolean {
  for (const column of [...Object.keys(def.columns), ...def.refs.map((r) => r.column)]) {
    if (def.derived?.includes(column)) continue;
    const a = asInFile(local[column]);
    const b = incoming[column] ?? null;
    if (a !== b && !(typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) < 1e-9)) return false;
  }
  return true;
}

/** Whether the local record stands as it is whatever happens to it meanwhile (its `modified` only grows). */
function staysUnchanged(def: TableDef, local: Row, incoming: Row): boolean {
  if (def.name === 'checkins') return !(incoming.undone_at && !local.undone_at);
  return !((incoming.modified as string) > (local.modified as string));
}

function person(row: Row) {
  return { uid: row.uid as string, first_name: row.first_name as string, last_name: row.last_name as string };
}

/**
 * One import or merge of an event file, from its checked records to its last turn. Longer than
 * the ~400 lines a file should keep, for a reason: every step (look up by uid, decide per record,
 * stage, apply in turns, note conflicts and double admissions) reads and grows the same state of
 * one merge (ids by uid, staged changes, counts); the SQL lives in db/repositories/event-file-merge.ts,
 * the door state in door-state.ts and the staging of new events in staging.ts.
 */
export class EventMerger {
  private eventId = 0;
  private eventCreated = false;
  private createdGroupId: number | undefined;
  private eventChanges: Row | undefined;
  private readonly allowSetup: boolean;
  /** uid -> local id, per parent table: this event's records only. */
  private readonly ids = new Map([...REF_TABLES].map((t) => [t, new Map<string, number>()]));
  /** Records of a merge that are new here, per table: their ids come when the merge is applied. */
  private readonly incomingUids = new Map(EVENT_TABLES.map((d) => [d.name, new Set<string>()]));
  private readonly skippedUids = new Set<string>();
  private groupId = 0;
  /** The oldest `modified` among the merged file's records (its event record aside). */
  private oldestIncoming: string | undefined;
  private readonly result: Omit<ImportResult, 'event_id' | 'event_created' | 'group_id' | 'group_created'> = {
    created: emptyCounts(),
    updated: emptyCounts(),
    unchanged: emptyCounts(),
    skipped: emptyCounts(),
    deleted: emptyCounts(),
    checkins_added: 0,
    conflicts: [],
    double_admissions: [],
  };
  /** Existing parents (`table:id`) whose local version won, so their child sets stay. */
  private readonly keptParents = new Set<string>();
  /** Existing parents whose file version won: child table -> parent ids. */
  private readonly replacedParents = new Map([...OWNED.keys()].map((t) => [t, new Set<number>()]));
  /** Child uids the file holds, per owned child table (to keep them when replacing). */
  private readonly seenChildren = new Map([...OWNED.keys()].map((t) => [t, new Set<string>()]));
  /** A merge's changes, in file order, applied by `finish`. */
  private readonly staged = new StagedChanges();
  private readonly checkinGuests = new Set<number>();
  private readonly addedCheckins = new Set<number>();
  private pending: { def: TableDef; records: Row[]; bytes: number } | undefined;
  /** Writes under way, oldest first; `writingTable` the table of the last one started. */
  private writing: Promise<void>[] = [];
  private writingTable: TableDef | undefined;
  private position = -1;
  private readonly now = nowIso();
  /** Stamps a new event's hidden row, or a merge's marker, while this import is alive. */
  private heartbeat: { stop: () => Promise<void> } | undefined;
  /** The existing event a merge goes into. */
  private localEvent: ImportingEventRow | undefined;
  /** A merge under way: its marker (a hidden event) and the notes that undo it. */
  private journal: MergeJournal | undefined;

  constructor(
    private readonly db: Db,
    private readonly options: ImportOptions,
  ) {
    this.allowSetup = options.allowSetupChanges ?? true;
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
    if (this.eventCreated) {
      await writeTransaction(this.db, async (trx) => {
        if (!(await revealEvent(trx, this.eventId))) throw new EventFileRejected('the import was interrupted');
        await this.options.withinCommit?.(trx, this.outcome());
      });
      await this.heartbeat?.stop();
    } else {
      await this.applyMerge();
      await this.staged.close();
    }
    await refreshSearchStatistics(this.db, this.result.created.guests);
    return this.outcome();
  }

  private outcome(): ImportResult {
    return { event_id: this.eventId, event_created: this.eventCreated, group_id: this.groupId, group_created: this.createdGroupId !== undefined, ...this.result };
  }

  /** After a refusal: removes what was staged (a new event's rows, a group made for it). */
  async abandon(): Promise<void> {
    await this.settle().catch(() => undefined);
    await this.staged.close();
    try {
      // Stamped until gone: an import waiting for this one does not clear it alongside. A
      // merge's marker takes what the merge applied with it.
      if (this.eventCreated) await discardHiddenEvent(this.db, this.eventId);
      else if (this.journal) await discardHiddenEvent(this.db, this.journal.mergeId);
    } finally {
      await this.heartbeat?.stop();
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
    const { scope } = this.options;
    if (local) {
      this.localEvent = local;
      this.eventId = local.id;
      this.groupId = local.group_id;
      const fields = { name: incoming.name, starts: incoming.starts, ends: incoming.ends, timezone: incoming.timezone };
      const changed = (Object.keys(fields) as (keyof typeof fields)[]).some((k) => local[k] !== fields[k]);
      if (incoming.modified > local.modified && changed) {
        if (this.allowSetup) this.eventChanges = { ...fields, modified: incoming.modified };
        else this.refuseSetupChange('events', incoming.uid);
      } else this.result.unchanged.events++;
      return;
    }
    if (!this.allowSetup) throw new ConflictError({ detail: MSG.eventFileDoorNewEvent });
    const groupId = await this.groupForNewEvent();
    this.groupId = groupId;
    this.eventId = await insertHiddenEvent(this.db, { ...incoming, group_id: groupId });
    this.heartbeat = keepImportAlive(this.db, this.eventId);
    this.eventCreated = true;
    this.result.created.events++;
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
    if (!this.eventCreated || def !== this.writingTable || this.options.doorActive?.() !== false) await this.settle();
    else while (this.writing.length >= NEW_EVENT_WRITES_IN_FLIGHT) await this.writing.shift();
    const writing = this.eventCreated ? this.writeNewRecords(def, records) : this.stageChanges(def, records);
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

  private skip(def: TableDef, uid: string): void {
    this.result.skipped[def.name]++;
    this.skippedUids.add(uid);
  }

  private refuseSetupChange(table: string, uid: string): void {
    this.conflict({ table, uid, kind: 'setup_change', resolution: 'not applied: a door role brings only check-ins, undos and new guests' });
    if (table === 'events') this.result.unchanged.events++;
  }

  /** A new event: the batch is written under the hidden event, each statement committed on its own. */
  private async writeNewRecords(def: TableDef, records: Row[]): Promise<void> {
    const rows: Row[] = [];
    for (const record of records) {
      const row = this.resolveRefs(def, record);
      if (row) rows.push(row);
      else this.skip(def, record.uid as string);
    }
    const perStatement = this.options.doorActive?.() === false ? rows.length : WRITE_ROWS;
    for (const part of chunks(rows, perStatement)) await this.insertFresh(this.db, def, part);
  }

  /**
   * A merge: each record is looked up (by uid, in this event only) and what stands as it is
   * is counted now; what may change is kept for `finish`, which decides it again inside its
   * transaction.
   */
  private async stageChanges(def: TableDef, records: Row[]): Promise<void> {
    await this.lookUpParents(def, records);
    const locals = new Map((await this.lookUp(def, records.map((r) => r.uid as string))).map((r) => [r.uid as string, r]));
    const owned = OWNED.get(def.name);
    const changes: Row[] = [];
    for (const record of records) {
      const uid = record.uid as string;
      this.seenChildren.get(def.name)?.add(uid);
      if (!this.parentsKnown(def, record)) {
        this.skip(def, uid);
        continue;
      }
      const local = locals.get(uid);
      if (local && local.owner_event_id !== this.eventId) {
        this.otherEvent(def, uid);
        continue;
      }
      if (local) {
        this.ids.get(def.name)?.set(uid, local.id as number);
        if (staysUnchanged(def, local, record)) {
          this.result.unchanged[def.name]++;
          if (OWNERS.has(def.name)) this.keptParents.add(`${def.name}:${local.id}`);
          continue;
        }
        if (!this.allowSetup && !def.door?.update) {
          // A scan elsewhere moves a guest's door state and `modified`, and nothing else.
          // Otherwise the local record stands as it is (for its children too): listed, not applied.
          if (this.sameAsLocal(def, local, record)) this.result.unchanged[def.name]++;
          else {
            this.refuseSetupChange(def.name, uid);
            this.result.skipped[def.name]++;
          }
          if (OWNERS.has(def.name)) this.keptParents.add(`${def.name}:${local.id}`);
          continue;
        }
      } else {
        if (!this.allowSetup && !this.doorMayCreate(def, record)) {
          this.refuseSetupChange(def.name, uid);
          this.skip(def, uid);
          continue;
        }
        // A child of a parent whose local version won: the local set stands as it is.
        const parentId = owned ? this.ids.get(owned.parent)?.get(record[def.refs[0].key] as string) : undefined;
        if (parentId !== undefined && this.keptParents.has(`${owned!.parent}:${parentId}`)) {
          this.result.unchanged[def.name]++;
          continue;
        }
        this.incomingUids.get(def.name)!.add(uid);
      }
      changes.push(record);
    }
    if (changes.length > 0) await this.staged.push(def.name, changes);
  }

  /** The record says what the local row says (derived state aside), its parents compared by uid. */
  private sameAsLocal(def: TableDef, local: Row, record: Row): boolean {
    const columns = Object.keys(def.columns).filter((c) => !def.derived?.includes(c));
    const sameParents = def.refs.every((ref) => {
      const uid = record[ref.key] as string | null;
      return (uid === null ? null : this.ids.get(ref.table)!.get(uid)) === (local[ref.column] ?? null);
    });
    return sameParents && sameContent({ ...def, refs: [], columns: Object.fromEntries(columns.map((c) => [c, def.columns[c]])) }, local, record);
  }

  /**
   * Rows of this table with these uids, read a hundred at a time outside any transaction: on
   * the writer's connection each read is one short statement between the door's scans; on a
   * reader, none is.
   */
  private async lookUp(def: TableDef, uids: string[]): Promise<Row[]> {
    const rows: Row[] = [];
    const reader = this.options.reader ?? this.db;
    for (const part of chunks(uids, LOOKUP_ROWS)) rows.push(...(await rowsByUid(reader, LAYOUTS.get(def.name)!, part, this.eventId)));
    return rows;
  }

  /** A door role adds check-ins (with the registrations a scan makes) and new guests with their answers; nothing else. */
  private doorMayCreate(def: TableDef, record: Row): boolean {
    if (!def.door?.create) return false;
    if (def.name === 'guest_answers') return this.incomingUids.get('guests')!.has(record.guest_uid as string);
    return true;
  }

  private otherEvent(def: TableDef, uid: string): void {
    this.conflict({ table: def.name, uid, kind: 'other_event', resolution: 'skipped: this uid belongs to another event here' });
    this.skip(def, uid);
  }

  /**
   * Parents a merged file names but does not hold (a delta file holds only what changed)
   * are looked up in this event. One that is another event's acts as absent: its children
   * are skipped and listed; one that is nowhere makes the file refused.
   */
  private async lookUpParents(def: TableDef, records: Row[]): Promise<void> {
    for (const ref of def.refs) {
      const known = this.ids.get(ref.table)!;
      const incoming = this.incomingUids.get(ref.table)!;
      const missing = new Set<string>();
      for (const r of records) {
        const uid = r[ref.key] as string | null;
        if (uid !== null && !known.has(uid) && !incoming.has(uid) && !this.skippedUids.has(uid)) missing.add(uid);
      }
      if (missing.size === 0) continue;
      const parentDef = DEFS.get(ref.table)!;
      const found = await this.lookUp(parentDef, [...missing]);
      for (const row of found) {
        if (row.owner_event_id === this.eventId) known.set(row.uid as string, row.id as number);
        else this.otherEvent(parentDef, row.uid as string);
      }
      if (found.length < missing.size) throw new EventFileRejected(`a ${def.name} record refers to a ${ref.table} record that is not in the file`);
    }
  }

  /** Every parent is here or coming; false when one was skipped (so is the child). */
  private parentsKnown(def: TableDef, record: Row): boolean {
    return def.refs.every((ref) => {
      const uid = record[ref.key] as string | null;
      return uid === null || !this.skippedUids.has(uid);
    });
  }

  /** Parent uids become local ids; undefined when a parent was skipped (so is the child). */
  private resolveRefs(def: TableDef, record: Row): Row | undefined {
    // Built key by key (no `delete`), so every row keeps one fast object shape.
    const row: Row = {};
    const refKeys = REF_KEYS.get(def.name)!;
    for (const key in record) if (!refKeys.has(key)) row[key] = record[key];
    for (const ref of def.refs) {
      const uid = record[ref.key] as string | null;
      if (uid === null) {
        row[ref.column] = null;
        continue;
      }
      const id = this.ids.get(ref.table)!.get(uid);
      if (id === undefined) {
        if (this.skippedUids.has(uid)) return undefined;
        throw new EventFileRejected(`a ${def.name} record refers to a ${ref.table} record that is not in the file`);
      }
      row[ref.column] = id;
    }
    if (def.onEvent) row.event_id = this.eventId;
    return row;
  }

  private conflict(conflict: ImportConflict): void {
    this.result.conflicts.push(conflict);
  }

  // -------------------------------------------------------------------------------------
  // Writing: a new event's batches, and a merge's changes inside `finish`'s transaction

  private async insertFresh(trx: Conn, def: TableDef, fresh: Row[]): Promise<void> {
    let rows = fresh;
    if (def.natural && !this.eventCreated) rows = await this.dropNaturalDuplicates(trx, def, rows);
    if (def.name === 'guests' && !this.eventCreated) rows = await this.dropCodeClashes(trx, rows);
    if (rows.length === 0) return;
    // Ids come back only where something needs them: parents (for their children's refs)
    // and check-ins merged into a known event (for double admissions).
    // and every row of a merge (for its journal).
    const needIds = REF_TABLES.has(def.name) || !this.eventCreated;
    let inserted: { id: number; uid: string }[];
    let terms: BatchTerms | undefined;
    try {
      // Guests' search terms are worked out while the database inserts the guests.
      if (def.name === 'guests') [inserted, terms] = await alongside(insertRows(trx, def.name, rows, needIds), () => batchSearchTerms(rows));
      else inserted = await insertRows(trx, def.name, rows, needIds);
    } catch (err) {
      // A unique key as much as a CHECK or foreign key: the same refusal on either database.
      if (isUniqueViolation(err) || isIntegrityViolation(err)) throw new EventFileRejected(`a ${def.name} record breaks a rule of the database`);
      throw err;
    }
    for (const r of inserted) this.ids.get(def.name)?.set(r.uid, r.id);
    this.journal?.inserted(def.name, inserted.map((r) => r.id));
    this.result.created[def.name] += rows.length;
    if (terms) {
      const idByUid = new Map(inserted.map((r) => [r.uid, r.id]));
      await fileSearchTerms(trx, this.eventId, terms, rows.map((g) => idByUid.get(g.uid as string) as number));
    }
    if (def.name === 'checkins') {
      this.result.checkins_added += rows.length;
      for (const r of inserted) this.addedCheckins.add(r.id);
      for (const c of rows) this.checkinGuests.add(c.guest_id as number);
    }
  }

  /**
   * Applies the staged changes in short transactions, each with its journal notes, so the
   * door's scans go between them; the last transaction ends the merge: the event record, the
   * arrival note and `withinCommit` (a follower's cursors) commit with it, or nothing does.
   */
  private async applyMerge(): Promise<void> {
    // Nothing to apply (the same file again, a sync's reach-back): no marker, one transaction.
    if (this.staged.empty) return this.commitMerge(undefined);
    const marker = await insertMergeMarker(this.db, this.localEvent!);
    this.journal = new MergeJournal(marker);
    this.heartbeat = keepImportAlive(this.db, marker);
    // Each kind of turn its own pace: a check-in inserted costs a fraction of a guest changed.
    const quiet = this.options.doorActive?.() === false;
    const pacers = new Map<string, TurnPacer>();
    const pacer = (kind: string) => {
      if (!pacers.has(kind)) pacers.set(kind, quiet ? new TurnPacer(BATCH, BATCH, 0) : new TurnPacer(MIN_APPLY_ROWS, MAX_APPLY_ROWS, turnMs(this.db)));
      return pacers.get(kind)!;
    };
    // One turn: its changes and their notes in one transaction; answers how long it held the writer.
    const inTurn = (work: (trx: Trx) => Promise<void>) =>
      writeTransaction(this.db, async (trx) => {
        const started = performance.now();
        await work(trx);
        await this.journal!.write(trx);
        return performance.now() - started;
      });
    for await (const { table, records } of this.staged.batches(BATCH)) {
      await pacer(table).inTurns(records, (part) => inTurn((trx) => this.applyBatch(trx, DEFS.get(table)!, part)));
    }
    for (const [table, gone] of await this.replacedChildrenGone()) {
      await pacer(`drop ${table}`).inTurns(gone, (part) => inTurn((trx) => this.journal!.deleteRows(trx, table, part)));
      this.result.deleted[table] += gone.length;
    }
    await pacer('door state').inTurns([...this.checkinGuests], (part) =>
      inTurn(async (trx) => {
        this.result.double_admissions.push(...(await refreshDoorState(trx, this.eventId, part, this.addedCheckins, this.now, this.journal)));
      }),
    );
    await this.commitMerge(marker);
    this.journal = undefined;
    await this.heartbeat.stop();
    await forgetMerge(this.db, marker);
  }

  /** The merge's last transaction: its marker goes, with the event record, the arrival note and `withinCommit`. */
  private async commitMerge(marker: number | undefined): Promise<void> {
    await writeTransaction(this.db, async (trx) => {
      if (marker !== undefined && !(await endMerge(trx, marker))) throw new EventFileRejected('the import was interrupted');
      if (this.eventChanges) {
        await updateEventRecord(trx, this.eventId, this.eventChanges);
        this.result.updated.events++;
      }
      const changed = [this.result.created, this.result.updated, this.result.deleted].some((counts) => Object.values(counts).some((n) => n > 0));
      if (changed && this.oldestIncoming !== undefined) await recordArrival(trx, this.eventId, this.oldestIncoming, this.options.arrival ?? 'push');
      await this.options.withinCommit?.(trx, this.outcome());
    });
  }

  /** Decides each staged record again against the row as it is now. */
  private async applyBatch(trx: Trx, def: TableDef, records: Row[]): Promise<void> {
    const locals = new Map((await rowsByUid(trx, LAYOUTS.get(def.name)!, records.map((r) => r.uid as string), this.eventId)).map((r) => [r.uid as string, r]));
    const owned = OWNED.get(def.name);
    const fresh: Row[] = [];
    for (const record of records) {
      if (this.oldestIncoming === undefined || (record.modified as string) < this.oldestIncoming) this.oldestIncoming = record.modified as string;
      const incoming = this.resolveRefs(def, record);
      if (!incoming) {
        this.skip(def, record.uid as string);
        continue;
      }
      const local = locals.get(incoming.uid as string);
      if (!local) {
        // A child of a parent whose local version won: the local set stands as it is.
        if (owned && this.keptParents.has(`${owned.parent}:${incoming[owned.column]}`)) this.result.unchanged[def.name]++;
        else fresh.push(incoming);
        continue;
      }
      if (local.owner_event_id !== this.eventId) {
        this.otherEvent(def, incoming.uid as string);
        continue;
      }
      this.ids.get(def.name)?.set(incoming.uid as string, local.id as number);
      await this.mergeExisting(trx, def, local, incoming);
    }
    await this.insertFresh(trx, def, fresh);
  }

  private async mergeExisting(trx: Trx, def: TableDef, local: Row, incoming: Row): Promise<void> {
    if (def.name === 'checkins') {
      // An undo on either side wins; a check-in is otherwise never changed.
      if (incoming.undone_at && !local.undone_at) {
        const modified = (incoming.modified as string) > (local.modified as string) ? incoming.modified : local.modified;
        this.journal?.updated('checkins', local, { undone_at: incoming.undone_at, modified });
        await updateRow(trx, 'checkins', local.id as number, { undone_at: incoming.undone_at, modified });
        this.result.updated.checkins++;
        this.checkinGuests.add(local.guest_id as number);
      } else this.result.unchanged.checkins++;
      return;
    }
    const isOwner = [...OWNED.entries()].filter(([, o]) => o.parent === def.name).map(([child]) => child);
    if (!((incoming.modified as string) > (local.modified as string))) {
      this.result.unchanged[def.name]++;
      if (isOwner.length > 0) this.keptParents.add(`${def.name}:${local.id}`);
      return;
    }
    // The later record wins whole, with its set of answers, tags or links: what the file
    // does not list for it is removed at the end, so a removal on the later side travels.
    for (const child of isOwner) this.replacedParents.get(child)!.add(local.id as number);
    if (sameContent(def, local, incoming)) {
      this.journal?.updated(def.name, local, { modified: incoming.modified });
      await updateRow(trx, def.name, local.id as number, { modified: incoming.modified });
      this.result.unchanged[def.name]++;
      return;
    }
    const changes: Row = { modified: incoming.modified };
    for (const column of [...Object.keys(def.columns), ...def.refs.map((r) => r.column)]) {
      if (!def.derived?.includes(column)) changes[column] = incoming[column];
    }
    if (def.name === 'guests') await this.keepCodesUnique(trx, local, changes);
    this.journal?.updated(def.name, local, changes);
    await updateRow(trx, def.name, local.id as number, changes);
    this.result.updated[def.name]++;
    if (def.name === 'guests') await replaceSearchTerms(trx, this.eventId, { ...local, ...changes, id: local.id as number });
  }

  /** An incoming code change that would take another guest's barcode or tag is not applied (core/guest-codes.ts). */
  private async keepCodesUnique(trx: Trx, local: Row, changes: Row): Promise<void> {
    const changed: Record<string, string> = {};
    for (const column of CODE_COLUMNS) if (changes[column] != null && changes[column] !== local[column]) changed[column] = changes[column] as string;
    if (Object.keys(changed).length === 0) return;
    const holders = await codeHolders(trx, this.eventId, [changed]);
    for (const { column, code, holder } of holders.clashes(changed, (h) => h.id === local.id)) {
      changes[column] = local[column];
      this.codeConflict(local, column, code, holder, mergeCodeResolution(column, 'changed').resolution);
    }
  }

  private codeConflict(guest: Row, column: CodeColumn, value: string, holder: CodeHolderRow, resolution: string): void {
    this.conflict({
      table: 'guests',
      uid: guest.uid as string,
      kind: column,
      value,
      existing_id: holder.id,
      existing_uid: holder.uid,
      resolution,
      guest: person(guest),
      existing_guest: { id: holder.id, uid: holder.uid, first_name: holder.first_name, last_name: holder.last_name },
    });
  }

  /** Per owned table, the ids of children of parents whose file version won, that the file does not list. */
  private async replacedChildrenGone(): Promise<[string, number[]][]> {
    const out: [string, number[]][] = [];
    for (const [table, { column }] of OWNED) {
      const seen = this.seenChildren.get(table)!;
      const rows = await childrenOf(this.db, table, column, [...this.replacedParents.get(table)!]);
      out.push([table, rows.filter((r) => !seen.has(r.uid)).map((r) => r.id)]);
    }
    return out;
  }

  /** A row whose natural key exists already is that record (e.g. the same tag added on both sides). */
  private async dropNaturalDuplicates(trx: Conn, def: TableDef, rows: Row[]): Promise<Row[]> {
    const keys = def.natural!;
    const keyOf = (r: Row) => JSON.stringify(keys.map((k) => r[k]));
    const existing = new Map((await rowsByNaturalKey(trx, LAYOUTS.get(def.name)!, rows)).map((f) => [keyOf(f), f]));
    const keep: Row[] = [];
    for (const row of rows) {
      const found = existing.get(keyOf(row));
      if (!found) {
        keep.push(row);
        continue;
      }
      this.ids.get(def.name)?.set(row.uid as string, found.id as number);
      this.seenChildren.get(def.name)?.add(found.uid as string);
      this.result.unchanged[def.name]++;
      if (def.name === 'promotion_codes') {
        this.conflict({ table: def.name, uid: row.uid as string, kind: 'code', value: row.code as string, existing_id: found.id as number, existing_uid: found.uid as string, resolution: 'merged into the promotion code of the same code here' });
      }
    }
    return keep;
  }

  /** A new guest whose barcode another guest here has is skipped; a clashing NFC tag is left empty (core/guest-codes.ts). */
  private async dropCodeClashes(trx: Conn, guests: Row[]): Promise<Row[]> {
    const holders = await codeHolders(trx, this.eventId, guests as GuestCodes[]);
    const keep: Row[] = [];
    for (const guest of guests) {
      let skip = false;
      for (const { column, code, holder } of holders.clashes(guest as GuestCodes)) {
        const { resolution, skipGuest } = mergeCodeResolution(column, 'new');
        this.codeConflict(guest, column, code, holder, resolution);
        if (skipGuest) skip = true;
        else guest[column] = null;
      }
      if (skip) this.skip(DEFS.get('guests')!, guest.uid as string);
      else keep.push(guest);
    }
    return keep;
  }
}
