import type { Conn, Db, Trx } from '../../db/knex';
import { isIntegrityViolation, isUniqueViolation } from '../../db/errors';
import { writeTransaction } from '../../db/write-transaction';
import { childrenOf, endMerge, insertMergeMarker, insertRows, keepImportAlive, rowsByNaturalKey, rowsByUid, updateEventRecord, updateRow, type ImportingEventRow, type Row } from '../../db/repositories/event-file-merge';
import { forgetMerge, MergeJournal } from '../../db/repositories/merge-journal';
import { replaceSearchTerms, type Searchable } from '../../db/repositories/guest-updates';
import { codeHolders } from '../../db/repositories/guest-codes';
import { fileSearchTerms } from '../../db/search-index';
import { batchSearchTerms, type BatchTerms } from '../../db/search-terms';
import { alongside } from '../../db/bulk';
import { TurnPacer, turnMs } from '../../db/turns';
import { recordArrival } from '../../db/repositories/sync';
import { refreshDoorState } from './door-state';
import { EventFileRejected, type ImportOptions, type ImportResult } from './merge-types';
import { DEFS, OWNED, REF_TABLES, type MergePlan } from './merge-plan';
import type { StagedChanges } from './staging';
import { EVENT_TABLE_LAYOUTS, type TableDef } from './tables';

/**
 * Writes what a merge's plan (merge-plan.ts) decides: a new event's rows as they come, and a
 * merge's staged changes in short transactions that take turns with the door's scans, each
 * noting what it changed in the merge's journal (db/repositories/merge-journal.ts), the last
 * one ending the merge.
 */

const LAYOUTS = new Map(EVENT_TABLE_LAYOUTS.map((l) => [l.name, l]));
// A merge's staged records are applied in turns (db/turns.ts) of about turnMs each while a
// door is at work (a changed guest is a few statements: its row, its search terms, its note),
// between these; a whole batch (APPLY_BATCH) per transaction while none is.
const MIN_APPLY_ROWS = 5;
const MAX_APPLY_ROWS = 500;
const APPLY_BATCH = 2000;

export class MergeApplier {
  /** A merge under way: its marker (a hidden event) and the notes that undo it. */
  journal: MergeJournal | undefined;
  private heartbeat: { stop: () => Promise<void> } | undefined;

  constructor(
    private readonly db: Db,
    private readonly options: ImportOptions,
    private readonly plan: MergePlan,
    private readonly outcome: () => ImportResult,
    /** When the import began: double admissions are told against it. */
    private readonly now: string,
  ) {}

  /** New rows of a table: a new event's (on their own), or a merge's (in its turn's transaction). */
  async insertFresh(trx: Conn, def: TableDef, fresh: Row[]): Promise<void> {
    const { plan } = this;
    let rows = fresh;
    if (def.natural && !plan.eventCreated) rows = plan.newNaturalRows(def, rows, await rowsByNaturalKey(trx, LAYOUTS.get(def.name)!, rows));
    if (def.name === 'guests' && !plan.eventCreated) rows = plan.newGuestsClear(rows, await codeHolders(trx, plan.eventId, rows));
    if (rows.length === 0) return;
    // Ids come back only where something needs them: parents (for their children's refs)
    // and every row of a merge (for its journal and double admissions).
    const needIds = REF_TABLES.has(def.name) || !plan.eventCreated;
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
    plan.inserted(def, rows, inserted);
    this.journal?.inserted(def.name, inserted.map((r) => r.id));
    if (terms) {
      const idByUid = new Map(inserted.map((r) => [r.uid, r.id]));
      await fileSearchTerms(trx, plan.eventId, terms, rows.map((g) => idByUid.get(g.uid as string) as number));
    }
  }

  /**
   * Applies the staged changes in short transactions, each with its journal notes, so the
   * door's scans go between them; the last transaction ends the merge: the event record, the
   * arrival note and `withinCommit` (a follower's cursors) commit with it, or nothing does.
   */
  async applyMerge(localEvent: ImportingEventRow, staged: StagedChanges): Promise<void> {
    // Nothing to apply (the same file again, a sync's reach-back): no marker, one transaction.
    if (staged.empty) return this.commitMerge(undefined);
    const marker = await insertMergeMarker(this.db, localEvent);
    this.journal = new MergeJournal(marker);
    this.heartbeat = keepImportAlive(this.db, marker);
    // Each kind of turn its own pace: a check-in inserted costs a fraction of a guest changed.
    const quiet = this.options.doorActive?.() === false;
    const pacers = new Map<string, TurnPacer>();
    const pacer = (kind: string) => {
      if (!pacers.has(kind)) pacers.set(kind, quiet ? new TurnPacer(APPLY_BATCH, APPLY_BATCH, 0) : new TurnPacer(MIN_APPLY_ROWS, MAX_APPLY_ROWS, turnMs(this.db)));
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
    for await (const { table, records } of staged.batches(APPLY_BATCH)) {
      await pacer(table).inTurns(records, (part) => inTurn((trx) => this.applyBatch(trx, DEFS.get(table)!, part)));
    }
    for (const [table, gone] of await this.replacedChildrenGone()) {
      await pacer(`drop ${table}`).inTurns(gone, (part) => inTurn((trx) => this.journal!.deleteRows(trx, table, part)));
      this.plan.result.deleted[table] += gone.length;
    }
    const { plan } = this;
    await pacer('door state').inTurns([...plan.checkinGuests], (part) =>
      inTurn(async (trx) => {
        plan.result.double_admissions.push(...(await refreshDoorState(trx, plan.eventId, part, plan.addedCheckins, this.now, this.journal)));
      }),
    );
    await this.commitMerge(marker);
    this.journal = undefined;
    await this.stop();
    await forgetMerge(this.db, marker);
  }

  /** Stops the merge's heartbeat (after it ended, or was refused). */
  async stop(): Promise<void> {
    await this.heartbeat?.stop();
  }

  /** The merge's last transaction: its marker goes, with the event record, the arrival note and `withinCommit`. */
  private async commitMerge(marker: number | undefined): Promise<void> {
    const { plan } = this;
    await writeTransaction(this.db, async (trx) => {
      if (marker !== undefined && !(await endMerge(trx, marker))) throw new EventFileRejected('the import was interrupted');
      if (plan.eventChanges) {
        await updateEventRecord(trx, plan.eventId, plan.eventChanges);
        plan.result.updated.events++;
      }
      if (plan.changed && plan.oldestIncoming !== undefined) await recordArrival(trx, plan.eventId, plan.oldestIncoming, this.options.arrival ?? 'push');
      await this.options.withinCommit?.(trx, this.outcome());
    });
  }

  /** Decides each staged record again against the row as it is now (the plan), and writes it. */
  private async applyBatch(trx: Trx, def: TableDef, records: Row[]): Promise<void> {
    const locals = new Map((await rowsByUid(trx, LAYOUTS.get(def.name)!, records.map((r) => r.uid as string), this.plan.eventId)).map((r) => [r.uid as string, r]));
    const { fresh, existing } = this.plan.decideStaged(def, records, locals);
    const refile: Searchable[] = [];
    for (const { local, incoming } of existing) {
      const changed = await this.applyExisting(trx, def, local, incoming);
      if (changed) refile.push(changed);
    }
    // The changed guests' search terms, the batch's in one go.
    await replaceSearchTerms(trx, this.plan.eventId, refile);
    await this.insertFresh(trx, def, fresh);
  }

  /** Writes one record's changes; answers the guest as it now is where a guest changed (its terms to file again). */
  private async applyExisting(trx: Trx, def: TableDef, local: Row, incoming: Row): Promise<Searchable | undefined> {
    const { plan } = this;
    const decided = plan.decideExisting(def, local, incoming);
    if (!decided) return undefined;
    const { changes, updated } = decided;
    const guest = def.name === 'guests' && updated;
    if (guest) {
      // Read in the turn's transaction, after the turn's earlier changes.
      const codes = plan.changedCodes(local, changes);
      if (codes) plan.keepCodesUnique(local, changes, await codeHolders(trx, plan.eventId, [codes]));
    }
    this.journal?.updated(def.name, local, changes);
    await updateRow(trx, def.name, local.id as number, changes);
    return guest ? ({ ...local, ...changes, id: local.id } as Searchable) : undefined;
  }

  /** Per owned table, the ids of children of parents whose file version won, that the file does not list. */
  private async replacedChildrenGone(): Promise<[string, number[]][]> {
    const out: [string, number[]][] = [];
    for (const [table, { column }] of OWNED) {
      const seen = this.plan.seenChildren.get(table)!;
      const rows = await childrenOf(this.db, table, column, [...this.plan.replacedParents.get(table)!]);
      out.push([table, rows.filter((r) => !seen.has(r.uid)).map((r) => r.id)]);
    }
    return out;
  }
}
