import { z } from 'zod';
import type { Role } from '../../core/roles';
import type { Conn, Trx } from '../knex';
import { isIntegrityViolation } from '../records';
import { nowIso, toApiDatetime } from '../../core/time';
import { searchTerms } from './guests';
import type { EventRow } from './events';
import type { GroupScope } from './groups';
import { NotFoundError, ValidationError } from '../../core/errors';
import { MSG } from '../../core/messages';

// ---------------------------------------------------------------------------------------
// What an event file holds: every table under an event, parents before children. Records
// name their parents by uid (never by id), so ids can be remapped on the importing side.

const text = (max: number) => z.string().max(max);
const ntext = (max: number) => z.string().max(max).nullable();
const int = z.number().int().min(-2147483648).max(2147483647);
const nint = int.nullable();
// Decimals may be stored as numeric text by some writers.
const num = z.union([z.number().finite(), z.string().regex(/^-?\d+(\.\d+)?$/).transform(Number)]);
const nnum = num.nullable();
const bool = z.union([z.boolean(), z.literal(0), z.literal(1)]).transform((v) => (v ? 1 : 0));
// Stored datetimes: server instants (`...sss Z`) and wall-clock times (`YYYY-MM-DDThh:mm:ss`).
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/;
const time = z.string().regex(DATETIME);
const ntime = time.nullable();
const wallTime = time;
const nwallTime = ntime;

interface Ref {
  /** The foreign-key column here. */
  column: string;
  /** The parent table it points at. */
  table: string;
  /** The key holding the parent's uid in the file. */
  key: string;
  nullable?: boolean;
}

export interface TableDef {
  name: string;
  /** Data columns copied as they are (no ids, no uid/created/modified). */
  columns: Record<string, z.ZodType>;
  refs: Ref[];
  /** Has an event_id column; otherwise the first ref's parent has it. */
  onEvent: boolean;
  /** Another unique key besides uid: a row with the same one is the same record. */
  natural?: string[];
  /** Columns kept out of the "did it change" comparison: derived state. */
  derived?: string[];
  uidMax?: number;
}

const EVENT_COLUMNS = { name: text(255), starts: wallTime, ends: wallTime, timezone: text(64) };

export const EVENT_TABLES: TableDef[] = [
  {
    name: 'registration_types',
    onEvent: true,
    refs: [],
    columns: {
      type: text(16), name: text(255), description: z.string(), starts: nwallTime, ends: nwallTime, minorder: nint, maxorder: nint,
      price: nnum, quantity: nint, door: bool, online: bool, source: text(32), objstatus: int,
    },
  },
  { name: 'custom_questions', onEvent: true, refs: [], columns: { question: z.string(), type: text(16), objstatus: int } },
  {
    name: 'question_choices',
    onEvent: false,
    refs: [{ column: 'question_id', table: 'custom_questions', key: 'question_uid' }],
    columns: { answer: z.string(), position: int },
  },
  { name: 'tracks', onEvent: true, refs: [], columns: { name: text(255), starts: wallTime, ends: wallTime } },
  {
    name: 'sessions',
    onEvent: true,
    refs: [{ column: 'track_id', table: 'tracks', key: 'track_uid', nullable: true }],
    columns: {
      name: text(255), starts: wallTime, ends: wallTime, access_control: bool, capacity: int, auto_registration: bool,
      overbook_capacity: int, hidden_session: bool, overlap_enabled: bool,
    },
  },
  {
    name: 'session_tags',
    onEvent: false,
    refs: [{ column: 'session_id', table: 'sessions', key: 'session_uid' }],
    columns: { tag: text(255), position: int },
    natural: ['session_id', 'tag'],
  },
  {
    name: 'guests',
    onEvent: true,
    refs: [{ column: 'registration_type_id', table: 'registration_types', key: 'registration_type_uid' }],
    columns: {
      first_name: text(255), last_name: text(255), email: text(254), prefix: ntext(64), suffix: ntext(64), phone: ntext(64),
      cell_phone: ntext(64), company: ntext(255), job_title: ntext(255), work_phone: ntext(64), blog: ntext(255), website: ntext(255),
      barcode: text(128).min(1), nfc_tag: ntext(128), objstatus: int, selfie: text(512), source: text(32), checked_in_at: ntime,
    },
    derived: ['checked_in_at'],
  },
  {
    name: 'guest_answers',
    onEvent: false,
    refs: [
      { column: 'guest_id', table: 'guests', key: 'guest_uid' },
      { column: 'question_id', table: 'custom_questions', key: 'question_uid' },
      { column: 'choice_id', table: 'question_choices', key: 'choice_uid', nullable: true },
    ],
    columns: { text_answer: z.string().nullable() },
  },
  {
    name: 'session_registrations',
    onEvent: false,
    refs: [
      { column: 'guest_id', table: 'guests', key: 'guest_uid' },
      { column: 'session_id', table: 'sessions', key: 'session_uid' },
    ],
    columns: {},
    natural: ['session_id', 'guest_id'],
  },
  {
    name: 'checkins',
    onEvent: true,
    uidMax: 64,
    refs: [
      { column: 'guest_id', table: 'guests', key: 'guest_uid' },
      { column: 'session_id', table: 'sessions', key: 'session_uid', nullable: true },
    ],
    columns: { direction: z.enum(['in', 'out']), scanned_at: time, station: ntext(128), undone_at: ntime },
  },
  {
    name: 'promotion_codes',
    onEvent: true,
    refs: [],
    columns: {
      code: text(64), discount_type: text(16), discount_amount: num, quantity: int, used: int, starts: nwallTime, ends: nwallTime,
      available_only: bool,
    },
    natural: ['event_id', 'code'],
  },
  {
    name: 'promotion_code_registration_types',
    onEvent: false,
    refs: [
      { column: 'promotion_code_id', table: 'promotion_codes', key: 'promotion_code_uid' },
      { column: 'registration_type_id', table: 'registration_types', key: 'registration_type_uid' },
    ],
    columns: {},
    natural: ['promotion_code_id', 'registration_type_id'],
  },
];

/** Every table an event file may hold, in file order. */
export const EVENT_FILE_TABLES = ['events', ...EVENT_TABLES.map((t) => t.name)];

export type TableCounts = Record<string, number>;

function emptyCounts(): TableCounts {
  return Object.fromEntries(EVENT_FILE_TABLES.map((t) => [t, 0]));
}

// ---------------------------------------------------------------------------------------
// Export

type Row = Record<string, unknown>;

/**
 * One page of a table as ready-made file lines: SQLite builds each record's JSON itself
 * (json_object), so a row crosses the driver as one string, not twenty columns.
 * (PostgreSQL would use json_build_object.)
 */
function tableLines(db: Conn, def: TableDef, eventId: number) {
  const pairs: string[] = [];
  for (const c of ['uid', 'created', 'modified', ...Object.keys(def.columns)]) pairs.push(`'${c}', t.${c}`);
  def.refs.forEach((ref, i) => pairs.push(`'${ref.key}', r${i}.uid`));
  const q = db(`${def.name} as t`).select('t.id', db.raw(`json_object('table', '${def.name}', 'record', json_object(${pairs.join(', ')})) as line`));
  def.refs.forEach((ref, i) => {
    q.leftJoin(`${ref.table} as r${i}`, `r${i}.id`, `t.${ref.column}`);
  });
  // A child table has no event_id; its first parent does.
  q.where(def.onEvent ? 't.event_id' : 'r0.event_id', eventId);
  return q;
}

/** How many records of each table the event file of this event holds. */
export async function countEventRecords(db: Conn, eventId: number): Promise<TableCounts> {
  const counts = emptyCounts();
  counts.events = 1;
  for (const def of EVENT_TABLES) {
    const q = db(`${def.name} as t`);
    if (!def.onEvent) q.join(`${def.refs[0].table} as r0`, 'r0.id', `t.${def.refs[0].column}`);
    const [{ n }] = await q.where(def.onEvent ? 't.event_id' : 'r0.event_id', eventId).count({ n: '*' });
    counts[def.name] = Number(n);
  }
  return counts;
}

export function eventRecord(event: EventRow): Row {
  return { uid: event.uid, created: event.created, modified: event.modified, name: event.name, starts: event.starts, ends: event.ends, timezone: event.timezone };
}

const EXPORT_PAGE = 5000;

/**
 * The records of one event, table by table, a page at a time (keyset pagination on id), so
 * a large guest list is never held whole.
 */
export async function* eventRecordPages(db: Conn, eventId: number): AsyncGenerator<{ table: string; lines: string[] }> {
  const page = (def: TableDef, afterId: number): Promise<{ id: number; line: string }[]> => {
    const rows = tableLines(db, def, eventId).andWhere('t.id', '>', afterId).orderBy('t.id').limit(EXPORT_PAGE).then((r) => r);
    // Awaited on the next turn; if the export stops first, its failure must not go unhandled.
    rows.catch(() => undefined);
    return rows;
  };
  for (const def of EVENT_TABLES) {
    let next = page(def, 0);
    for (;;) {
      const rows = await next;
      if (rows.length === 0) break;
      // The next page is read while this one is compressed and hashed.
      if (rows.length === EXPORT_PAGE) next = page(def, rows[rows.length - 1].id);
      yield { table: def.name, lines: rows.map((r) => r.line) };
      if (rows.length < EXPORT_PAGE) break;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Import and merge

/** The file is refused as a whole: thrown inside the transaction, so nothing is written. */
export class EventFileRejected extends ValidationError {
  constructor(reason: string) {
    super({ detail: MSG.eventFileInvalid(reason) });
  }
}

export interface ImportConflict {
  table: string;
  uid: string;
  kind: 'barcode' | 'nfc_tag' | 'code' | 'other_event';
  value?: string;
  existing_id?: number;
  existing_uid?: string;
  resolution: string;
  guest?: { uid: string; first_name: string; last_name: string };
  existing_guest?: { id: number; uid: string; first_name: string; last_name: string };
}

export interface DoubleAdmission {
  guest_id: number;
  guest_uid: string;
  name: string;
  checkins: { uid: string; station: string | null; scanned_at: string }[];
}

export interface ImportResult {
  event_id: number;
  event_created: boolean;
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
  /** Groups the caller may see (`null`: all). */
  scope: GroupScope;
  /** Where a new event goes. */
  groupId?: number;
  /** The importer's role (absent: the CLI, the laptop's own operator, a manager). A door's file may bring only check-ins, undos and new guests. */
  role?: Role;
}

const BATCH = 500;
// Records gathered before a batch is written: fewer, larger statements.
const FLUSH = 10000;
// SQLite allows 32766 bound variables per statement.
const MAX_VARIABLES = 30000;
const JSON_ROWS = 50000;
const REF_TABLES = new Set(EVENT_TABLES.flatMap((t) => t.refs.map((r) => r.table)));
const eventSchema = z.object({ uid: text(36).min(1), created: time, modified: time, ...EVENT_COLUMNS });

function recordSchema(def: TableDef) {
  const refs = Object.fromEntries(def.refs.map((r) => [r.key, r.nullable ? z.string().max(64).nullable() : z.string().min(1).max(64)]));
  return z.object({ uid: z.string().min(1).max(def.uidMax ?? 36), created: time, modified: time, ...def.columns, ...refs });
}

/**
 * Inserts many rows in few statements. On SQLite the rows travel as one JSON parameter that
 * SQLite unpacks itself (json_each): binding tens of thousands of values one by one costs
 * more than the insert.
 */
async function insertRows(trx: Trx, table: string, rows: Row[], returning: boolean): Promise<{ id: number; uid: string }[]> {
  if (rows.length === 0) return [];
  const columns = Object.keys(rows[0]);
  if (!isSqlite(trx)) {
    const out: { id: number; uid: string }[] = [];
    for (const part of chunks(rows, Math.floor(MAX_VARIABLES / columns.length))) {
      const query = trx(table).insert(part);
      if (returning) out.push(...((await query.returning(['id', 'uid'])) as { id: number; uid: string }[]));
      else await query;
    }
    return out;
  }
  // `->>` on each array element: SQLite parses each row's JSON once and reuses it.
  const values = columns.map((_, i) => `value ->> ${i}`).join(', ');
  const sql = `insert into ${table} (${columns.map((c) => `"${c}"`).join(', ')}) select ${values} from json_each(?)${returning ? ' returning id, uid' : ''}`;
  const out: { id: number; uid: string }[] = [];
  for (const part of chunks(rows, JSON_ROWS)) {
    const json = JSON.stringify(part.map((r) => columns.map((c) => r[c] ?? null)));
    const result = await runAll(trx, sql, [json]);
    if (returning) out.push(...(result as { id: number; uid: string }[]));
  }
  return out;
}

/** The rows here with these uids; on SQLite the uids travel as one JSON parameter. */
async function rowsByUid(trx: Trx, table: string, uids: string[]): Promise<Row[]> {
  if (!isSqlite(trx)) {
    const out: Row[] = [];
    for (const part of chunks(uids, BATCH)) out.push(...((await trx(table).whereIn('uid', part)) as Row[]));
    return out;
  }
  return (await runAll(trx, `select t.* from json_each(?) as j join ${table} as t on t.uid = j.value`, [JSON.stringify(uids)])) as Row[];
}

function isSqlite(trx: Trx): boolean {
  return (trx as unknown as { client: { config: { client: unknown } } }).client.config.client === 'sqlite3';
}

interface SqliteConnection {
  all(sql: string, bindings: unknown[], done: (err: Error | null, rows: unknown[]) => void): void;
}

/** Runs one statement straight on the SQLite connection the transaction holds. */
async function runAll(trx: Trx, sql: string, bindings: unknown[]): Promise<unknown[]> {
  const client = (trx as unknown as { client: { acquireConnection(): Promise<SqliteConnection> } }).client;
  const connection = await client.acquireConnection();
  return new Promise((resolve, reject) => connection.all(sql, bindings, (err, rows) => (err ? reject(err) : resolve(rows))));
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Child sets that belong to their parent record and travel with it. */
const OWNED_CHILDREN: Record<string, { table: string; column: string }> = {
  guests: { table: 'guest_answers', column: 'guest_id' },
  sessions: { table: 'session_tags', column: 'session_id' },
  promotion_codes: { table: 'promotion_code_registration_types', column: 'promotion_code_id' },
};

function sameContent(def: TableDef, local: Row, incoming: Row): boolean {
  for (const column of [...Object.keys(def.columns), ...def.refs.map((r) => r.column)]) {
    if (def.derived?.includes(column)) continue;
    const a = local[column] ?? null;
    const b = incoming[column] ?? null;
    if (a !== b && !(typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) < 1e-9)) return false;
  }
  return true;
}

function guestName(row: Row): string {
  return `${row.first_name ?? ''} ${row.last_name ?? ''}`.trim();
}

/**
 * Merges the records of one event file into the database inside the caller's transaction.
 * Feed it records in file order with `add`, then `finish`. Records are matched by uid:
 * missing ones are added, one changed on both sides keeps the later `modified`, check-ins
 * are never duplicated and an undo wins; barcode/NFC clashes are reported, not overwritten.
 */
export class EventMerger {
  private eventId = 0;
  private eventCreated = false;
  private readonly ids = new Map<string, Map<string, number>>();
  private readonly skippedUids = new Set<string>();
  private readonly result: Omit<ImportResult, 'event_id' | 'event_created'> = {
    created: emptyCounts(),
    updated: emptyCounts(),
    unchanged: emptyCounts(),
    skipped: emptyCounts(),
    deleted: emptyCounts(),
    checkins_added: 0,
    conflicts: [],
    double_admissions: [],
  };
  private readonly checkinGuests = new Set<number>();
  /** Existing parents (`table:id`) whose local version won, so their child sets stay. */
  private readonly keptParents = new Set<string>();
  /** Existing parents whose file version won: child table -> parent ids. */
  private readonly replacedParents = new Map(Object.values(OWNED_CHILDREN).map((c) => [c.table, new Set<number>()]));
  /** Child uids the file holds, per owned child table (to keep them when replacing). */
  private readonly seenChildren = new Map(Object.values(OWNED_CHILDREN).map((c) => [c.table, new Set<string>()]));
  private readonly addedCheckins = new Set<number>();
  private readonly schemas = new Map(EVENT_TABLES.map((d) => [d.name, recordSchema(d)]));
  private readonly defs = new Map(EVENT_TABLES.map((d) => [d.name, d]));
  private readonly refKeys = new Map(EVENT_TABLES.map((d) => [d.name, new Set(d.refs.map((r) => r.key))]));
  private pending: { def: TableDef; records: Row[] } | undefined;
  private pendingTerms: [string, number][] = [];
  private writing: Promise<void> | undefined;
  private writingTable: string | undefined;
  private position = -1;
  private readonly now = nowIso();

  constructor(
    private readonly trx: Trx,
    private readonly options: ImportOptions,
  ) {
    for (const table of REF_TABLES) this.ids.set(table, new Map());
  }

  async add(table: string, record: unknown): Promise<void> {
    const index = EVENT_FILE_TABLES.indexOf(table);
    if (index < 0) throw new EventFileRejected(`unknown table "${table}"`);
    if (index < this.position || (table === 'events' && this.position === 0)) throw new EventFileRejected(`"${table}" records out of order`);
    if (index > 0 && this.position < 0) throw new EventFileRejected('the event record must come first');
    if (index !== this.position) await this.flush();
    this.position = index;
    if (table === 'events') return this.mergeEvent(record);
    this.pending ??= { def: this.defs.get(table)!, records: [] };
    this.pending.records.push(record as Row);
    if (this.pending.records.length >= FLUSH) await this.flush();
  }

  async finish(): Promise<ImportResult> {
    await this.flush();
    await this.settle();
    if (this.position < 0) throw new EventFileRejected('it holds no event');
    await this.dropReplacedChildren();
    await this.flushSearchTerms();
    await this.refreshDoorState();
    return { event_id: this.eventId, event_created: this.eventCreated, ...this.result };
  }

  private async mergeEvent(record: unknown): Promise<void> {
    const parsed = eventSchema.safeParse(record);
    if (!parsed.success) throw new EventFileRejected('its event record is invalid');
    const incoming = parsed.data;
    const local: EventRow | undefined = await this.trx('events').where({ uid: incoming.uid }).first();
    const { scope } = this.options;
    if (local) {
      // Out of scope answers exactly as absent would for any other route.
      if (scope !== null && !scope.includes(local.group_id)) throw new NotFoundError(MSG.eventNotFound);
      this.eventId = local.id;
      const fields = { name: incoming.name, starts: incoming.starts, ends: incoming.ends, timezone: incoming.timezone };
      const changed = (Object.keys(fields) as (keyof typeof fields)[]).some((k) => local[k] !== fields[k]);
      if (incoming.modified > local.modified && changed) {
        await this.trx('events').where({ id: local.id }).update({ ...fields, modified: incoming.modified });
        this.result.updated.events++;
      } else this.result.unchanged.events++;
      return;
    }
    const groupId = this.options.groupId;
    if (groupId === undefined) throw ValidationError.field('group_id', MSG.required);
    const group = await this.trx('groups').where({ id: groupId }).first('id');
    if (!group || (scope !== null && !scope.includes(groupId))) throw new ValidationError({ details: MSG.groupNotFound });
    const [row] = await this.trx('events').insert({ ...incoming, group_id: groupId }).returning('id');
    this.eventId = row.id;
    this.eventCreated = true;
    this.result.created.events++;
  }

  /**
   * Checks and resolves a batch, then hands it to the database while the next batch is read:
   * one write in flight at a time, and a table's writes end before the next table's
   * parents are looked up.
   */
  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = undefined;
    if (!batch || batch.records.length === 0) return;
    const { def } = batch;
    if (this.writingTable !== def.name) await this.settle();
    const schema = this.schemas.get(def.name)!;
    const records: Row[] = [];
    for (const raw of batch.records) {
      const parsed = schema.safeParse(raw);
      if (!parsed.success) throw new EventFileRejected(`a ${def.name} record is invalid`);
      const record = this.resolveRefs(def, parsed.data as Row);
      if (record) records.push(record);
      else {
        this.result.skipped[def.name]++;
        this.skippedUids.add(parsed.data.uid);
      }
    }
    await this.settle();
    if (records.length === 0) return;
    const writing = this.mergeBatch(def, records);
    // Awaited by settle(); a failure meanwhile must not go unhandled.
    writing.catch(() => undefined);
    this.writing = writing;
    this.writingTable = def.name;
  }

  private async settle(): Promise<void> {
    const writing = this.writing;
    this.writing = undefined;
    this.writingTable = undefined;
    await writing;
  }

  /** Parent uids become local ids; undefined when a parent was skipped (so is the child). */
  private resolveRefs(def: TableDef, record: Row): Row | undefined {
    // Built key by key (no `delete`), so every row keeps one fast object shape.
    const row: Row = {};
    const refKeys = this.refKeys.get(def.name)!;
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

  private remember(def: TableDef, uid: string, id: number): void {
    this.ids.get(def.name)?.set(uid, id);
  }

  private async mergeBatch(def: TableDef, records: Row[]): Promise<void> {
    const trx = this.trx;
    const locals = new Map<string, Row>();
    // A new event has nothing here to match or clash with (a uid used elsewhere is refused
    // by the unique index, and with it the file).
    if (this.eventCreated) return this.insertFresh(def, records);
    for (const row of await rowsByUid(trx, def.name, records.map((r) => r.uid as string))) locals.set(row.uid as string, row);
    const fresh: Row[] = [];
    const parent = Object.entries(OWNED_CHILDREN).find(([, child]) => child.table === def.name);
    const seen = this.seenChildren.get(def.name);
    for (const incoming of records) {
      seen?.add(incoming.uid as string);
      const local = locals.get(incoming.uid as string);
      if (!local) {
        // A child of a parent whose local version won: the local set stands as it is.
        if (parent && this.keptParents.has(`${parent[0]}:${incoming[parent[1].column]}`)) this.result.unchanged[def.name]++;
        else fresh.push(incoming);
        continue;
      }
      if (def.onEvent && local.event_id !== this.eventId) {
        this.conflict({ table: def.name, uid: incoming.uid as string, kind: 'other_event', resolution: 'skipped: this uid belongs to another event here' });
        this.result.skipped[def.name]++;
        this.skippedUids.add(incoming.uid as string);
        continue;
      }
      this.remember(def, incoming.uid as string, local.id as number);
      await this.mergeExisting(def, local, incoming);
    }
    await this.insertFresh(def, fresh);
  }

  private async mergeExisting(def: TableDef, local: Row, incoming: Row): Promise<void> {
    const trx = this.trx;
    if (def.name === 'checkins') {
      // An undo on either side wins; a check-in is otherwise never changed.
      if (incoming.undone_at && !local.undone_at) {
        const modified = (incoming.modified as string) > (local.modified as string) ? incoming.modified : local.modified;
        await trx('checkins').where({ id: local.id }).update({ undone_at: incoming.undone_at, modified });
        this.result.updated.checkins++;
        this.checkinGuests.add(local.guest_id as number);
      } else this.result.unchanged.checkins++;
      return;
    }
    const owned = OWNED_CHILDREN[def.name];
    if (!((incoming.modified as string) > (local.modified as string))) {
      this.result.unchanged[def.name]++;
      if (owned) this.keptParents.add(`${def.name}:${local.id}`);
      return;
    }
    // The later record wins whole, with its set of answers, tags or links: what the file
    // does not list for it is removed at the end, so a removal on the later side travels.
    if (owned) this.replacedParents.get(owned.table)!.add(local.id as number);
    if (sameContent(def, local, incoming)) {
      await trx(def.name).where({ id: local.id }).update({ modified: incoming.modified });
      this.result.unchanged[def.name]++;
      return;
    }
    const changes: Row = { modified: incoming.modified };
    for (const column of [...Object.keys(def.columns), ...def.refs.map((r) => r.column)]) {
      if (!def.derived?.includes(column)) changes[column] = incoming[column];
    }
    if (def.name === 'guests') await this.keepCodesUnique(local, changes);
    await trx(def.name).where({ id: local.id }).update(changes);
    this.result.updated[def.name]++;
    if (def.name === 'guests') {
      await trx('guest_search_terms').where({ guest_id: local.id }).delete();
      await this.writeSearchTerms([{ ...local, ...changes }]);
    }
  }

  /** An incoming code change that would take another guest's barcode or tag is not applied. */
  private async keepCodesUnique(local: Row, changes: Row): Promise<void> {
    for (const column of ['barcode', 'nfc_tag'] as const) {
      const value = changes[column];
      if (value == null || value === local[column]) continue;
      const other: Row | undefined = await this.trx('guests').where({ event_id: this.eventId, [column]: value }).whereNot('id', local.id as number).first();
      if (!other) continue;
      changes[column] = local[column];
      this.conflict({
        table: 'guests',
        uid: local.uid as string,
        kind: column,
        value: value as string,
        existing_id: other.id as number,
        existing_uid: other.uid as string,
        resolution: `kept this guest's ${column}`,
        guest: { uid: local.uid as string, first_name: local.first_name as string, last_name: local.last_name as string },
        existing_guest: { id: other.id as number, uid: other.uid as string, first_name: other.first_name as string, last_name: other.last_name as string },
      });
    }
  }

  private conflict(conflict: ImportConflict): void {
    this.result.conflicts.push(conflict);
  }

  private async insertFresh(def: TableDef, fresh: Row[]): Promise<void> {
    if (fresh.length === 0) return;
    let rows = fresh;
    if (def.natural && !this.eventCreated) rows = await this.dropNaturalDuplicates(def, rows);
    if (def.name === 'guests' && !this.eventCreated) rows = await this.dropCodeClashes(rows);
    if (rows.length === 0) return;
    // Ids come back only where something needs them: parents (for their children's refs)
    // and check-ins merged into a known event (for double admissions).
    const needIds = REF_TABLES.has(def.name) || (def.name === 'checkins' && !this.eventCreated);
    let inserted: { id: number; uid: string }[];
    try {
      inserted = await insertRows(this.trx, def.name, rows, needIds);
    } catch (err) {
      if (isIntegrityViolation(err)) throw new EventFileRejected(`a ${def.name} record breaks a rule of the database`);
      throw err;
    }
    for (const r of inserted) this.remember(def, r.uid, r.id);
    this.result.created[def.name] += rows.length;
    if (def.name === 'guests') {
      const idByUid = new Map(inserted.map((r) => [r.uid, r.id]));
      for (const g of rows) {
        const id = idByUid.get(g.uid as string) as number;
        for (const term of searchTerms(g as never)) this.pendingTerms.push([term, id]);
      }
      // Written with their batch, while the next records are read, not all at the end.
      await this.flushSearchTerms();
    }
    if (def.name === 'checkins') {
      this.result.checkins_added += rows.length;
      for (const r of inserted) this.addedCheckins.add(r.id);
      for (const c of rows) this.checkinGuests.add(c.guest_id as number);
    }
  }

  /** Children of parents whose file version won, that the file does not list. */
  private async dropReplacedChildren(): Promise<void> {
    for (const child of Object.values(OWNED_CHILDREN)) {
      const seen = this.seenChildren.get(child.table)!;
      for (const part of chunks([...this.replacedParents.get(child.table)!], BATCH)) {
        const rows: { id: number; uid: string }[] = await this.trx(child.table).whereIn(child.column, part).select('id', 'uid');
        const gone = rows.filter((r) => !seen.has(r.uid)).map((r) => r.id);
        for (const ids of chunks(gone, BATCH)) await this.trx(child.table).whereIn('id', ids).delete();
        this.result.deleted[child.table] += gone.length;
      }
    }
  }

  /** A row whose natural key exists already is that record (e.g. the same tag added on both sides). */
  private async dropNaturalDuplicates(def: TableDef, rows: Row[]): Promise<Row[]> {
    const keys = def.natural!;
    const keyOf = (r: Row) => JSON.stringify(keys.map((k) => r[k]));
    const existing = new Map<string, Row>();
    for (const part of chunks(rows, Math.floor(BATCH / keys.length))) {
      const found: Row[] = await this.trx(def.name).whereIn(keys, part.map((r) => keys.map((k) => r[k]) as never)).select('id', 'uid', ...keys);
      for (const f of found) existing.set(keyOf(f), f);
    }
    const keep: Row[] = [];
    for (const row of rows) {
      const found = existing.get(keyOf(row));
      if (!found) {
        keep.push(row);
        continue;
      }
      this.remember(def, row.uid as string, found.id as number);
      this.seenChildren.get(def.name)?.add(found.uid as string);
      this.result.unchanged[def.name]++;
      if (def.name === 'promotion_codes') {
        this.conflict({ table: def.name, uid: row.uid as string, kind: 'code', value: row.code as string, existing_id: found.id as number, existing_uid: found.uid as string, resolution: 'merged into the promotion code of the same code here' });
      }
    }
    return keep;
  }

  /** A new guest whose barcode another guest here has is skipped; a clashing NFC tag is left empty. */
  private async dropCodeClashes(guests: Row[]): Promise<Row[]> {
    const holders = new Map<string, Row>();
    for (const column of ['barcode', 'nfc_tag'] as const) {
      const values = guests.map((g) => g[column]).filter((v): v is string => typeof v === 'string');
      for (const part of chunks(values, BATCH)) {
        const found: Row[] = await this.trx('guests').where('event_id', this.eventId).whereIn(column, part).select('id', 'uid', 'first_name', 'last_name', column);
        for (const f of found) holders.set(`${column}:${f[column]}`, f);
      }
    }
    const keep: Row[] = [];
    for (const guest of guests) {
      let skip = false;
      for (const column of ['barcode', 'nfc_tag'] as const) {
        const other = guest[column] == null ? undefined : holders.get(`${column}:${guest[column]}`);
        if (!other) continue;
        this.conflict({
          table: 'guests',
          uid: guest.uid as string,
          kind: column,
          value: guest[column] as string,
          existing_id: other.id as number,
          existing_uid: other.uid as string,
          resolution: column === 'barcode' ? 'guest skipped' : 'guest added without NFC tag',
          guest: { uid: guest.uid as string, first_name: guest.first_name as string, last_name: guest.last_name as string },
          existing_guest: { id: other.id as number, uid: other.uid as string, first_name: other.first_name as string, last_name: other.last_name as string },
        });
        if (column === 'barcode') skip = true;
        else guest.nfc_tag = null;
      }
      if (skip) {
        this.skippedUids.add(guest.uid as string);
        this.result.skipped.guests++;
      } else keep.push(guest);
    }
    return keep;
  }

  /** New search terms are gathered, then written sorted with their batch (see flushSearchTerms). */
  private async writeSearchTerms(guests: Row[]): Promise<void> {
    for (const g of guests) {
      for (const term of searchTerms(g as never)) this.pendingTerms.push([term, g.id as number]);
    }
  }

  /** Sorted by term, a batch's entries land in the (event_id, term) index in order. */
  private async flushSearchTerms(): Promise<void> {
    const terms = this.pendingTerms.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    this.pendingTerms = [];
    const rows = terms.map(([term, guestId]) => ({ event_id: this.eventId, guest_id: guestId, term }));
    await insertRows(this.trx, 'guest_search_terms', rows, false);
  }

  /**
   * After the check-ins are merged: each affected guest is in when their latest event-level
   * check-in still standing is an 'in'; and two standing 'in's without an 'out' between,
   * one of them from the file, are a double admission made while the laptops were apart.
   */
  private async refreshDoorState(): Promise<void> {
    // A new event arrives with the door state it had; only a merge can change it.
    if (this.eventCreated) return;
    const guestIds = [...this.checkinGuests];
    for (const part of chunks(guestIds, BATCH)) {
      // event_id too, so the (event_id, guest_id, session_id) index finds each guest's scans.
      const checkins: Row[] = await this.trx('checkins')
        .where('event_id', this.eventId)
        .whereIn('guest_id', part)
        .whereNull('session_id')
        .whereNull('undone_at')
        .orderBy([{ column: 'guest_id' }, { column: 'scanned_at' }, { column: 'id' }])
        .select('id', 'uid', 'guest_id', 'direction', 'scanned_at', 'station');
      const guests: Row[] = await this.trx('guests').whereIn('id', part).select('id', 'uid', 'first_name', 'last_name', 'checked_in_at');
      const byGuest = new Map<number, Row[]>();
      for (const c of checkins) {
        const list = byGuest.get(c.guest_id as number) ?? [];
        list.push(c);
        byGuest.set(c.guest_id as number, list);
      }
      for (const guest of guests) {
        const list = byGuest.get(guest.id as number) ?? [];
        const last = list[list.length - 1];
        const checkedInAt = last && last.direction === 'in' ? last.scanned_at : null;
        if ((guest.checked_in_at ?? null) !== checkedInAt) {
          await this.trx('guests').where({ id: guest.id }).update({ checked_in_at: checkedInAt, modified: this.now });
        }
        // A new event brings its history along; only a merge can reveal doors apart.
        if (!this.eventCreated) this.findDoubleAdmissions(guest, list);
      }
    }
  }

  private findDoubleAdmissions(guest: Row, checkins: Row[]): void {
    let standingIn: Row | undefined;
    for (const c of checkins) {
      if (c.direction === 'out') {
        standingIn = undefined;
        continue;
      }
      if (standingIn) {
        const aNew = this.addedCheckins.has(standingIn.id as number);
        const bNew = this.addedCheckins.has(c.id as number);
        if ((aNew || bNew) && (aNew !== bNew || standingIn.station !== c.station)) {
          this.result.double_admissions.push({
            guest_id: guest.id as number,
            guest_uid: guest.uid as string,
            name: guestName(guest),
            checkins: [standingIn, c].map((x) => ({ uid: x.uid as string, station: (x.station as string | null) ?? null, scanned_at: toApiDatetime(x.scanned_at as string) as string })),
          });
        }
        continue;
      }
      standingIn = c;
    }
  }
}
