import type { Row } from '../../db/repositories/event-file-merge';
import type { TableCounts } from '../../db/repositories/event-file-export';
import { CODE_COLUMNS, mergeCodeResolution, type CodeColumn, type CodeHolders, type GuestCodes } from '../../core/guest-codes';
import { EventFileRejected, type ImportConflict, type ImportResult } from './merge-types';
import { EVENT_FILE_TABLES, EVENT_TABLES, type TableDef } from './tables';

/**
 * The merge policy of event files as a pure plan: records and what was read for them in, the
 * changes to make, the counts and the conflicts out; no I/O. merge.ts reads and stages,
 * merge-apply.ts writes what this decides, in paced, journaled turns.
 *
 * - A record is matched by uid within the event being merged only: a uid of another event's
 *   record (or of a child of one) acts as absent here, is skipped and listed as a conflict.
 * - The later `modified` wins whole, with its set of answers, tags or links; a check-in is never
 *   changed, but an undo on either side wins.
 * - A door role (allowSetup false) brings only check-ins, undos and new guests with their
 *   answers; every other change is listed as a conflict and not applied.
 * - Codes stay unique (core/guest-codes.ts): a new guest whose barcode is taken is skipped, a
 *   taken NFC tag left empty; a changed guest keeps its own code.
 * Past the ~400 lines a file should keep, for a reason: every decision reads and grows the
 * same state of one merge (ids by uid, kept and replaced parents, skipped uids, counts).
 */

export const DEFS = new Map(EVENT_TABLES.map((d) => [d.name, d]));
export const REF_TABLES = new Set(EVENT_TABLES.flatMap((t) => t.refs.map((r) => r.table)));
const REF_KEYS = new Map(EVENT_TABLES.map((d) => [d.name, new Set(d.refs.map((r) => r.key))]));
/** Owned child table -> its parent table and column. */
export const OWNED = new Map(EVENT_TABLES.filter((d) => d.owned).map((d) => [d.name, { parent: d.refs[0].table, column: d.refs[0].column }]));
const OWNERS = new Set([...OWNED.values()].map((o) => o.parent));

function emptyCounts(): TableCounts {
  return Object.fromEntries(EVENT_FILE_TABLES.map((t) => [t, 0]));
}

/** A stored value as a file holds it: PostgreSQL reads its booleans as true/false, files hold 0/1. */
function asInFile(value: unknown): unknown {
  return typeof value === 'boolean' ? Number(value) : (value ?? null);
}

export function sameContent(def: TableDef, local: Row, incoming: Row): boolean {
  for (const column of [...Object.keys(def.columns), ...def.refs.map((r) => r.column)]) {
    if (def.derived?.includes(column)) continue;
    const a = asInFile(local[column]);
    const b = incoming[column] ?? null;
    if (a !== b && !(typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) < 1e-9)) return false;
  }
  return true;
}

/** Whether the local record stands as it is whatever happens to it meanwhile (its `modified` only grows). */
export function staysUnchanged(def: TableDef, local: Row, incoming: Row): boolean {
  if (def.name === 'checkins') return !(incoming.undone_at && !local.undone_at);
  return !((incoming.modified as string) > (local.modified as string));
}

function person(row: Row) {
  return { uid: row.uid as string, first_name: row.first_name as string, last_name: row.last_name as string };
}

/** The event's own fields a file may change. */
export interface EventFields {
  name: string;
  starts: string;
  ends: string;
  timezone: string;
  modified: string;
}

/** A guest holding a code, as a conflict names it. */
export type CodeHolder = { id: number; uid: string; first_name: string; last_name: string };

/** One merge's decisions and what they depend on: the ids known by uid, the skipped, the kept parents. */
export class MergePlan {
  eventId = 0;
  /** The event is new here: its records are all new, nothing is merged. */
  eventCreated = false;
  /** The event record's changes, when the file's is later and differs. */
  eventChanges: Row | undefined;
  /** uid -> local id, per parent table: this event's records only. */
  readonly ids = new Map([...REF_TABLES].map((t) => [t, new Map<string, number>()]));
  /** Records of a merge that are new here, per table: their ids come when the merge is applied. */
  readonly incomingUids = new Map(EVENT_TABLES.map((d) => [d.name, new Set<string>()]));
  private readonly skippedUids = new Set<string>();
  /** Existing parents (`table:id`) whose local version won, so their child sets stay. */
  private readonly keptParents = new Set<string>();
  /** Existing parents whose file version won: child table -> parent ids. */
  readonly replacedParents = new Map([...OWNED.keys()].map((t) => [t, new Set<number>()]));
  /** Child uids the file holds, per owned child table (to keep them when replacing). */
  readonly seenChildren = new Map([...OWNED.keys()].map((t) => [t, new Set<string>()]));
  /** Guests whose check-ins changed (their door state is worked out again), and the check-ins added. */
  readonly checkinGuests = new Set<number>();
  readonly addedCheckins = new Set<number>();
  /** The oldest `modified` among the merged file's records (its event record aside). */
  oldestIncoming: string | undefined;
  readonly result: Omit<ImportResult, 'event_id' | 'event_created' | 'group_id' | 'group_created'> = {
    created: emptyCounts(),
    updated: emptyCounts(),
    unchanged: emptyCounts(),
    skipped: emptyCounts(),
    deleted: emptyCounts(),
    checkins_added: 0,
    conflicts: [],
    double_admissions: [],
  };

  constructor(readonly allowSetup: boolean) {}

  /** Whether the merge changed anything (then its arrival is noted for the deltas). */
  get changed(): boolean {
    return [this.result.created, this.result.updated, this.result.deleted].some((counts) => Object.values(counts).some((n) => n > 0));
  }

  /** The existing event's record against the file's: the later one's fields win, for a role that may change them. */
  decideEvent(local: EventFields, incoming: EventFields & { uid: string }): void {
    const fields = { name: incoming.name, starts: incoming.starts, ends: incoming.ends, timezone: incoming.timezone };
    const changed = (Object.keys(fields) as (keyof typeof fields)[]).some((k) => local[k] !== fields[k]);
    if (incoming.modified > local.modified && changed) {
      if (this.allowSetup) this.eventChanges = { ...fields, modified: incoming.modified };
      else this.refuseSetupChange('events', incoming.uid);
    } else this.result.unchanged.events++;
  }

  // -------------------------------------------------------------------------------------
  // Parents

  /** The parent uids of `ref` that the records name and no record of the file brought (a delta file's). */
  missingParents(def: TableDef, ref: TableDef['refs'][number], records: Row[]): string[] {
    const known = this.ids.get(ref.table)!;
    const incoming = this.incomingUids.get(ref.table)!;
    const missing = new Set<string>();
    for (const r of records) {
      const uid = r[ref.key] as string | null;
      if (uid !== null && !known.has(uid) && !incoming.has(uid) && !this.skippedUids.has(uid)) missing.add(uid);
    }
    return [...missing];
  }

  /**
   * The missing parents as found (each with `owner_event_id`): this event's are known from now
   * on, another event's act as absent (their children skipped and listed); one found nowhere
   * refuses the file.
   */
  foundParents(def: TableDef, ref: TableDef['refs'][number], missing: number, found: Row[]): void {
    const parentDef = DEFS.get(ref.table)!;
    for (const row of found) {
      if (row.owner_event_id === this.eventId) this.ids.get(ref.table)!.set(row.uid as string, row.id as number);
      else this.otherEvent(parentDef, row.uid as string);
    }
    if (found.length < missing) throw new EventFileRejected(`a ${def.name} record refers to a ${ref.table} record that is not in the file`);
  }

  /** Every parent is here or coming; false when one was skipped (so is the child). */
  private parentsKnown(def: TableDef, record: Row): boolean {
    return def.refs.every((ref) => {
      const uid = record[ref.key] as string | null;
      return uid === null || !this.skippedUids.has(uid);
    });
  }

  /** Parent uids become local ids; undefined when a parent was skipped (so is the child). */
  resolveRefs(def: TableDef, record: Row): Row | undefined {
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

  /** A new event's records as rows, those whose parent was skipped skipped too. */
  newEventRows(def: TableDef, records: Row[]): Row[] {
    const rows: Row[] = [];
    for (const record of records) {
      const row = this.resolveRefs(def, record);
      if (row) rows.push(row);
      else this.skip(def, record.uid as string);
    }
    return rows;
  }

  // -------------------------------------------------------------------------------------
  // Staging a merge: what stands is counted now, what may change is kept

  /**
   * A batch of a merge's records against the local rows of their uids (this event's, with
   * `owner_event_id`): what stands as it is is counted now; the records that may change
   * something are answered, to be decided again when applied.
   */
  stage(def: TableDef, records: Row[], locals: Map<string, Row>): Row[] {
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
    return changes;
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

  /** A door role adds check-ins (with the registrations a scan makes) and new guests with their answers; nothing else. */
  private doorMayCreate(def: TableDef, record: Row): boolean {
    if (!def.door?.create) return false;
    if (def.name === 'guest_answers') return this.incomingUids.get('guests')!.has(record.guest_uid as string);
    return true;
  }

  // -------------------------------------------------------------------------------------
  // Applying a merge: each staged record decided again against the row as it is now

  /** Staged records against their local rows now: the new ones as rows to insert, the existing ones to merge. */
  decideStaged(def: TableDef, records: Row[], locals: Map<string, Row>): { fresh: Row[]; existing: { local: Row; incoming: Row }[] } {
    const owned = OWNED.get(def.name);
    const fresh: Row[] = [];
    const existing: { local: Row; incoming: Row }[] = [];
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
      existing.push({ local, incoming });
    }
    return { fresh, existing };
  }

  /**
   * An existing record against the file's: the changes to write to its row (undefined: none),
   * `updated` when its content changes (a later record with the same content only moves its
   * `modified`). A guest's codes are checked after (keepCodesUnique).
   */
  decideExisting(def: TableDef, local: Row, incoming: Row): { changes: Row; updated: boolean } | undefined {
    if (def.name === 'checkins') {
      // An undo on either side wins; a check-in is otherwise never changed.
      if (!(incoming.undone_at && !local.undone_at)) {
        this.result.unchanged.checkins++;
        return undefined;
      }
      this.result.updated.checkins++;
      this.checkinGuests.add(local.guest_id as number);
      const modified = (incoming.modified as string) > (local.modified as string) ? incoming.modified : local.modified;
      return { changes: { undone_at: incoming.undone_at, modified }, updated: true };
    }
    const children = [...OWNED.entries()].filter(([, o]) => o.parent === def.name).map(([child]) => child);
    if (!((incoming.modified as string) > (local.modified as string))) {
      this.result.unchanged[def.name]++;
      if (children.length > 0) this.keptParents.add(`${def.name}:${local.id}`);
      return undefined;
    }
    // The later record wins whole, with its set of answers, tags or links: what the file
    // does not list for it is removed at the end, so a removal on the later side travels.
    for (const child of children) this.replacedParents.get(child)!.add(local.id as number);
    const derived = this.laterDerived(def, local, incoming);
    if (sameContent(def, local, incoming)) {
      this.result.unchanged[def.name]++;
      return { changes: { modified: incoming.modified, ...derived }, updated: false };
    }
    const changes: Row = { modified: incoming.modified, ...derived };
    for (const column of [...Object.keys(def.columns), ...def.refs.map((r) => r.column)]) {
      if (!def.derived?.includes(column)) changes[column] = incoming[column];
    }
    this.result.updated[def.name]++;
    return { changes, updated: true };
  }

  /**
   * The derived state (a guest's door state) of a later version that wins, where it differs:
   * taken with it, and worked out again from the scans here once they are merged, so the guest
   * is stamped anew only where the scans here say otherwise (a scan upstream arrives with its
   * guest's version, which this laptop's push then leaves out as the upstream's).
   */
  private laterDerived(def: TableDef, local: Row, incoming: Row): Row {
    const changes: Row = {};
    for (const column of def.derived ?? []) {
      if ((local[column] ?? null) === (incoming[column] ?? null)) continue;
      changes[column] = incoming[column] ?? null;
      if (def.name === 'guests') this.checkinGuests.add(local.id as number);
    }
    return changes;
  }

  // -------------------------------------------------------------------------------------
  // Codes and natural keys

  /** The codes a guest's changes would give it (undefined: none new), to look up their holders. */
  changedCodes(local: Row, changes: Row): GuestCodes | undefined {
    const changed: Partial<Record<CodeColumn, string>> = {};
    for (const column of CODE_COLUMNS) if (changes[column] != null && changes[column] !== local[column]) changed[column] = changes[column] as string;
    return Object.keys(changed).length > 0 ? changed : undefined;
  }

  /** A code change that would take another guest's barcode or tag is not applied: the guest keeps its own. */
  keepCodesUnique(local: Row, changes: Row, holders: CodeHolders<CodeHolder>): void {
    const changed = this.changedCodes(local, changes);
    if (!changed) return;
    for (const { column, code, holder } of holders.clashes(changed, (h) => h.id === local.id)) {
      changes[column] = local[column];
      this.codeConflict(local, column, code, holder, mergeCodeResolution(column, 'changed').resolution);
    }
  }

  /** New guests against the guests here holding their codes: a taken barcode skips the guest, a taken tag is left empty. */
  newGuestsClear(guests: Row[], holders: CodeHolders<CodeHolder>): Row[] {
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

  /** New rows whose natural key a row here has already (`existing`): that row is the record (the same tag added on both sides). */
  newNaturalRows(def: TableDef, rows: Row[], existing: Row[]): Row[] {
    const keys = def.natural!;
    const keyOf = (r: Row) => JSON.stringify(keys.map((k) => r[k]));
    const byKey = new Map(existing.map((f) => [keyOf(f), f]));
    const keep: Row[] = [];
    for (const row of rows) {
      const found = byKey.get(keyOf(row));
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

  /** Rows written, with the ids they took. */
  inserted(def: TableDef, rows: Row[], inserted: { id: number; uid: string }[]): void {
    for (const r of inserted) this.ids.get(def.name)?.set(r.uid, r.id);
    this.result.created[def.name] += rows.length;
    if (def.name === 'checkins') {
      this.result.checkins_added += rows.length;
      for (const r of inserted) this.addedCheckins.add(r.id);
      for (const c of rows) this.checkinGuests.add(c.guest_id as number);
    }
  }

  // -------------------------------------------------------------------------------------
  // Counts and conflicts

  skip(def: TableDef, uid: string): void {
    this.result.skipped[def.name]++;
    this.skippedUids.add(uid);
  }

  otherEvent(def: TableDef, uid: string): void {
    this.conflict({ table: def.name, uid, kind: 'other_event', resolution: 'skipped: this uid belongs to another event here' });
    this.skip(def, uid);
  }

  private refuseSetupChange(table: string, uid: string): void {
    this.conflict({ table, uid, kind: 'setup_change', resolution: 'not applied: a door role brings only check-ins, undos and new guests' });
    if (table === 'events') this.result.unchanged.events++;
  }

  private codeConflict(guest: Row, column: CodeColumn, value: string, holder: CodeHolder, resolution: string): void {
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

  private conflict(conflict: ImportConflict): void {
    this.result.conflicts.push(conflict);
  }
}
