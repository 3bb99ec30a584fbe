import type { Knex } from 'knex';
import type { Conn } from '../knex';
import { selectByValues } from '../bulk';
import { jsonObject, jsonObjectText } from '../dialect/json';
import { dialectOf, type ColumnKind } from '../dialect';
import type { EventRow } from './events';
import type { GroupRow } from './groups';

/** What the database side knows of a table an event file holds. */
export interface TableLayout {
  name: string;
  /** Data columns copied as they are (no ids, no uid/created/modified). */
  columns: string[];
  /** Parents, by foreign-key column; the first one of a child table leads to its event. */
  refs: { column: string; table: string; key: string; nullable?: boolean }[];
  /** Has an event_id column; otherwise the first ref's parent has it. */
  onEvent: boolean;
  /** Belongs to its first parent and travels with it (a guest's answers, a session's tags). */
  owned?: boolean;
  /** Another unique key besides uid: a row with the same one is the same record. */
  natural?: string[];
  /** The uid is unique within the event only (a scan's client-made id): other events' rows are never looked at. */
  uidPerEvent?: boolean;
}

export type TableCounts = Record<string, number>;

type Row = Record<string, unknown>;

/** What a delta selects: rows changed at or after `since`; with `unlessHeldUpstream`, not those the upstream holds at that very version (sync_upstream_versions). */
export interface DeltaFilter {
  since?: string;
  unlessHeldUpstream?: boolean;
}

/** The event's own rows, or those of a delta. */
function eventRows(db: Conn, layout: TableLayout, eventId: number, delta: DeltaFilter = {}) {
  const { since, unlessHeldUpstream } = delta;
  const q = db(`${layout.name} as t`);
  if (!layout.onEvent) q.join(`${layout.refs[0].table} as r0`, 'r0.id', `t.${layout.refs[0].column}`);
  q.where(layout.onEvent ? 't.event_id' : 'r0.event_id', eventId);
  if (since !== undefined) {
    const changed = (w: Knex.QueryBuilder, alias: string, table: string) => {
      w.where(`${alias}.modified`, '>=', since);
      if (unlessHeldUpstream) {
        w.whereNotExists((v) =>
          v.select(db.raw('1')).from('sync_upstream_versions as v').where('v.event_id', eventId).where('v.table_name', table).whereRaw(`v.uid = ${alias}.uid`).whereRaw(`v.modified = ${alias}.modified`),
        );
      }
    };
    // A record that travels with its parent travels whenever the parent does: the importing
    // side takes the parent's set whole.
    if (layout.owned) q.andWhere((w) => w.where((a) => changed(a, 't', layout.name)).orWhere((b) => changed(b, 'r0', layout.refs[0].table)));
    else q.andWhere((w) => changed(w, 't', layout.name));
  }
  return q;
}

/**
 * Rows of a table as ready-made file lines, by id: the database builds each record's JSON
 * itself, so a row crosses the driver as one string, not twenty columns.
 */
function linesByIds(db: Conn, layout: TableLayout, kinds: Record<string, ColumnKind>, ids: number[]): Promise<Row[]> {
  const dialect = dialectOf(db);
  const pairs: [string, string][] = ['uid', 'created', 'modified', ...layout.columns].map((c) => [c, dialect.jsonValue(`t.${c}`, kinds[c])]);
  const parents: [string, string][] = layout.refs.map((ref, i) => [ref.key, `p${i}.uid`]);
  const line = db.raw(`${jsonObjectText(db, [['table', `'${layout.name}'`], ['record', jsonObject(db, [...pairs, ...parents])]])} as line`);
  return selectByValues(db, `${layout.name} as t`, 't.id', ids, (q) => {
    layout.refs.forEach((ref, i) => {
      q.leftJoin(`${ref.table} as p${i}`, `p${i}.id`, `t.${ref.column}`);
    });
    // In id order on both databases: the same event gives the same file, byte for byte.
    return q.select(line).orderBy('t.id');
  });
}

/**
 * The ids of every record of each table the event file of this event holds (with `since`,
 * of what changed at or after it), in id order: read once on the tables' indexes, they give
 * the header's counts and the pages. Paging on `id > last` instead re-read (and sorted) every
 * record of a child table, whose rows are found through their parents, for each page.
 */
export async function eventRecordIds(db: Conn, layouts: TableLayout[], eventId: number, delta: DeltaFilter = {}): Promise<Map<string, number[]>> {
  const ids = new Map<string, number[]>(layouts.map((layout) => [layout.name, []]));
  if (delta.since === undefined) {
    for (const layout of layouts) ids.set(layout.name, (await eventRows(db, layout, eventId).orderBy('t.id').pluck('t.id')) as number[]);
    return ids;
  }
  // A delta (a follower's pull or push, every second) is a few rows: every table's in one
  // statement, rather than a statement a table.
  const parts = layouts.map((layout, n) => eventRows(db, layout, eventId, delta).select(db.raw(`${n} as tbl`), 't.id as id'));
  const rows: { tbl: number | string; id: number | string }[] = await parts[0].unionAll(parts.slice(1));
  for (const { tbl, id } of rows) ids.get(layouts[Number(tbl)].name)!.push(Number(id));
  for (const list of ids.values()) list.sort((a, b) => a - b);
  return ids;
}

export function eventRecord(event: EventRow) {
  return { uid: event.uid, created: event.created, modified: event.modified, name: event.name, starts: event.starts, ends: event.ends, timezone: event.timezone };
}

/** The event's group as a file carries it (no ids: the other laptop finds it by uid). */
export async function eventGroupRecord(db: Conn, event: EventRow) {
  const group: GroupRow = await db('groups').where({ id: event.group_id }).first();
  return { uid: group.uid, name: group.name, type: group.type, email: group.email, phone: group.phone, website: group.website };
}

const EXPORT_PAGE = 5000;

/**
 * The records of one event, table by table, a page of ids at a time (eventRecordIds), so a
 * large guest list is never held whole; the next page is read while this one is written.
 */
export async function* eventRecordPages(db: Conn, layouts: TableLayout[], ids: Map<string, number[]>): AsyncGenerator<{ table: string; lines: string[] }> {
  const page = (layout: TableLayout, kinds: Record<string, ColumnKind>, from: number): Promise<Row[]> => {
    const rows = linesByIds(db, layout, kinds, ids.get(layout.name)!.slice(from, from + EXPORT_PAGE));
    // Awaited on the next turn; if the export stops first, its failure must not go unhandled.
    rows.catch(() => undefined);
    return rows;
  };
  for (const layout of layouts) {
    const kinds = await dialectOf(db).columnKinds(db, layout.name);
    const total = ids.get(layout.name)!.length;
    let next = page(layout, kinds, 0);
    for (let from = 0; from < total; from += EXPORT_PAGE) {
      const rows = await next;
      // The next page is read while this one is compressed and hashed.
      if (from + EXPORT_PAGE < total) next = page(layout, kinds, from + EXPORT_PAGE);
      yield { table: layout.name, lines: rows.map((r) => r.line as string) };
    }
  }
}
