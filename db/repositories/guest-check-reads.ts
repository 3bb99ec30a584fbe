import type { Knex } from 'knex';
import type { Trx } from '../knex';
import { dialectOf } from '../dialect';
import { jsonRowsText } from '../dialect/json';
import { sentAtOnce } from '../write-transaction';
import { CodeHolders } from '../../core/guest-codes';
import type { QuestionForAnswers } from '../../core/answers';
import type { EventRow } from './events';

/**
 * What a guest's create and update are checked on (server/services/guest-checks.ts), read in
 * one statement inside the write's transaction: the events (scope is decided on them), the
 * registration types and questions named, the guests holding the codes sent, and on SQLite the
 * ids the new guests will take. Each read is a column of JSON text. The SQL is built once per
 * shape (how many events and types, whether questions and codes are asked, whether ids are
 * drawn) and sent with knex.raw: the events and types as placeholders, the questions and codes,
 * of any number, each one JSON parameter. A read not asked for is left out of the statement:
 * SQLite prepares the statement's text on every send, and an empty read still cost its share.
 */

/** What a batch of writes names, across its events. */
export interface GuestCheckWanted {
  eventIds: number[];
  typeIds: number[];
  questionIds: number[];
  barcodes: string[];
  nfcTags: string[];
}

/** What the writes to one event are checked against. */
export interface EventChecks {
  types: Set<number>;
  questions: Map<number, QuestionForAnswers>;
  /** Codes held, by guest id. */
  holders: CodeHolders<number | undefined>;
}

export interface GuestCheckReads {
  /** The events anyone in scope could see (not being imported); scope with eventInScope. */
  visible: Pick<EventRow, 'id' | 'group_id'>[];
  /** By event id, for each of the wanted events. */
  checks: Map<number, EventChecks>;
  /** The ids the new guests will take (Dialect.nextIds). */
  ids: number[];
}

/** Which reads a statement holds, and how many placeholders its events and types take. */
interface Shape {
  events: number;
  types: number;
  questions: boolean;
  barcodes: boolean;
  nfcTags: boolean;
  lastId: string | undefined;
}

const builtSql = new Map<string, string>();

function buildSql(trx: Trx, shape: Shape): string {
  const sqlite = dialectOf(trx).name === 'sqlite';
  const list = (count: number) => Array.from({ length: count }, () => '?').join(', ');
  const events = list(shape.events);
  const jsonIds = sqlite ? 'select value from json_each(?)' : 'select json_array_elements_text(?::json)::bigint';
  // The codes are read first (CROSS JOIN keeps the order on SQLite): one lookup of the
  // (event_id, code) index each.
  const holding = (column: string) =>
    `(select ${jsonRowsText(trx, ['g.event_id', 'g.id', 'w.value'])} from ${sqlite ? 'json_each(?) as w' : 'json_array_elements_text(?::json) as w(value)'} ` +
    `cross join guests g where g.${column} = w.value and g.event_id in (${events}))`;
  const questionsOf = `q.event_id in (${events}) and q.id in (${jsonIds}) and q.objstatus <> 3`;
  const columns = [
    `(select ${jsonRowsText(trx, ['e.id', 'e.group_id'])} from events e where e.id in (${events}) and e.importing_since is null) as events`,
    ...(shape.types > 0 ? [`(select ${jsonRowsText(trx, ['t.event_id', 't.id'])} from registration_types t where t.event_id in (${events}) and t.id in (${list(shape.types)})) as types`] : []),
    ...(shape.questions
      ? [
          `(select ${jsonRowsText(trx, ['q.event_id', 'q.id', 'q.type', 'q.objstatus'])} from custom_questions q where ${questionsOf}) as questions`,
          `(select ${jsonRowsText(trx, ['c.question_id', 'c.id'])} from question_choices c join custom_questions q on q.id = c.question_id where ${questionsOf}) as choices`,
        ]
      : []),
    ...(shape.barcodes ? [`${holding('barcode')} as barcodes`] : []),
    ...(shape.nfcTags ? [`${holding('nfc_tag')} as nfc_tags`] : []),
    ...(shape.lastId ? [`${shape.lastId} as last_id`] : []),
  ];
  return `select ${columns.join(', ')}`;
}

/** The statement's bindings, in the order buildSql places them. */
function bindingsOf(shape: Shape, wanted: GuestCheckWanted, questionIds: number[]): unknown[] {
  const { eventIds } = wanted;
  return [
    ...eventIds,
    ...(shape.types > 0 ? [...eventIds, ...wanted.typeIds] : []),
    ...(shape.questions ? [...eventIds, JSON.stringify(questionIds), ...eventIds, JSON.stringify(questionIds)] : []),
    ...(shape.barcodes ? [JSON.stringify(wanted.barcodes), ...eventIds] : []),
    ...(shape.nfcTags ? [JSON.stringify(wanted.nfcTags), ...eventIds] : []),
  ];
}

interface ReadRow {
  events: string;
  types?: string;
  questions?: string;
  choices?: string;
  barcodes?: string;
  nfc_tags?: string;
  last_id?: unknown;
}

/** The reads a batch of guest writes is checked on; `newGuests`: how many ids to draw for the guests it may add. */
export async function readGuestChecks(trx: Trx, wanted: GuestCheckWanted, newGuests: number): Promise<GuestCheckReads> {
  const dialect = dialectOf(trx);
  const inline = newGuests > 0 ? dialect.nextIdsInline : undefined;
  // Ids no integer column holds are no question of any event.
  const questionIds = wanted.questionIds.filter((id) => Number.isSafeInteger(id));
  const shape: Shape = {
    events: wanted.eventIds.length,
    types: wanted.typeIds.length,
    questions: questionIds.length > 0,
    barcodes: wanted.barcodes.length > 0,
    nfcTags: wanted.nfcTags.length > 0,
    lastId: inline?.column('guests'),
  };
  const key = `${dialect.name} ${shape.events} ${shape.types} ${shape.questions} ${shape.barcodes} ${shape.nfcTags} ${inline !== undefined}`;
  let sql = builtSql.get(key);
  if (sql === undefined) {
    sql = buildSql(trx, shape);
    builtSql.set(key, sql);
  }
  const [result, drawn] = await sentAtOnce([
    trx.raw(sql, bindingsOf(shape, wanted, questionIds) as Knex.RawBinding[]),
    newGuests > 0 && !inline ? dialect.nextIds(trx, 'guests', newGuests) : undefined,
  ]);
  const [row] = (dialect.name === 'postgres' ? (result as { rows: ReadRow[] }).rows : result) as ReadRow[];
  const checks = new Map<number, EventChecks>(wanted.eventIds.map((id) => [id, { types: new Set(), questions: new Map(), holders: new CodeHolders() }]));
  for (const [eventId, id] of JSON.parse(row.types ?? '[]') as [number, number][]) checks.get(eventId)?.types.add(Number(id));
  const questionEvents = new Map<number, number>();
  for (const [eventId, id, type, objstatus] of JSON.parse(row.questions ?? '[]') as [number, number, string, number][]) {
    questionEvents.set(id, eventId);
    checks.get(eventId)?.questions.set(id, { id, type, objstatus, choiceIds: new Set() });
  }
  for (const [questionId, id] of JSON.parse(row.choices ?? '[]') as [number, number][]) checks.get(questionEvents.get(questionId)!)?.questions.get(questionId)?.choiceIds.add(id);
  for (const [column, rows] of [['barcode', row.barcodes], ['nfc_tag', row.nfc_tags]] as const) {
    for (const [eventId, id, code] of JSON.parse(rows ?? '[]') as [number, number, string][]) checks.get(eventId)?.holders.hold(column, code, Number(id));
  }
  const visible = (JSON.parse(row.events) as [number, number][]).map(([id, group_id]) => ({ id, group_id }));
  const ids = drawn ?? (inline ? inline.ids(row.last_id, newGuests) : []);
  return { visible, checks, ids };
}
