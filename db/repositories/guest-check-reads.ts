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
 * ids the new guests will take. Each read is a column of JSON text, each list of values one
 * JSON parameter, so the SQL is the same whatever a batch holds: built once per dialect and
 * sent with knex.raw.
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

type Param = keyof GuestCheckWanted;

/** The statement's SQL, and which list each of its placeholders takes, in order. */
interface Built {
  sql: string;
  params: Param[];
}

const built = new Map<string, Built>();

function buildSql(trx: Trx, lastIdColumn: string | undefined): Built {
  const sqlite = dialectOf(trx).name === 'sqlite';
  const params: Param[] = [];
  const ids = (param: Param) => {
    params.push(param);
    return sqlite ? 'select value from json_each(?)' : 'select json_array_elements_text(?::json)::bigint';
  };
  // The codes are read first (CROSS JOIN keeps the order on SQLite): one lookup of the
  // (event_id, code) index each.
  const holding = (param: Param, column: string) => {
    params.push(param);
    const values = sqlite ? 'json_each(?) as w' : 'json_array_elements_text(?::json) as w(value)';
    return `select ${jsonRowsText(trx, ['g.event_id', 'g.id', 'w.value'])} from ${values} cross join guests g where g.${column} = w.value and g.event_id in (${ids('eventIds')})`;
  };
  const questionsOf = () => `q.event_id in (${ids('eventIds')}) and q.id in (${ids('questionIds')}) and q.objstatus <> 3`;
  const columns = [
    `(select ${jsonRowsText(trx, ['e.id', 'e.group_id'])} from events e where e.id in (${ids('eventIds')}) and e.importing_since is null) as events`,
    `(select ${jsonRowsText(trx, ['t.event_id', 't.id'])} from registration_types t where t.event_id in (${ids('eventIds')}) and t.id in (${ids('typeIds')})) as types`,
    `(select ${jsonRowsText(trx, ['q.event_id', 'q.id', 'q.type', 'q.objstatus'])} from custom_questions q where ${questionsOf()}) as questions`,
    `(select ${jsonRowsText(trx, ['c.question_id', 'c.id'])} from question_choices c join custom_questions q on q.id = c.question_id where ${questionsOf()}) as choices`,
    `(${holding('barcodes', 'barcode')}) as barcodes`,
    `(${holding('nfcTags', 'nfc_tag')}) as nfc_tags`,
    ...(lastIdColumn ? [`${lastIdColumn} as last_id`] : []),
  ];
  return { sql: `select ${columns.join(', ')}`, params };
}

interface ReadRow {
  events: string;
  types: string;
  questions: string;
  choices: string;
  barcodes: string;
  nfc_tags: string;
  last_id?: unknown;
}

/** The reads a batch of guest writes is checked on; `newGuests`: how many ids to draw for the guests it may add. */
export async function readGuestChecks(trx: Trx, wanted: GuestCheckWanted, newGuests: number): Promise<GuestCheckReads> {
  const dialect = dialectOf(trx);
  const inline = newGuests > 0 ? dialect.nextIdsInline : undefined;
  const key = `${dialect.name}${inline ? ' last id' : ''}`;
  let statement = built.get(key);
  if (!statement) {
    statement = buildSql(trx, inline?.column('guests'));
    built.set(key, statement);
  }
  const lists: Record<Param, string> = {
    eventIds: JSON.stringify(wanted.eventIds),
    typeIds: JSON.stringify(wanted.typeIds),
    // Ids no integer column holds are no question of any event.
    questionIds: JSON.stringify(wanted.questionIds.filter((id) => Number.isSafeInteger(id))),
    barcodes: JSON.stringify(wanted.barcodes),
    nfcTags: JSON.stringify(wanted.nfcTags),
  };
  const [result, drawn] = await sentAtOnce([
    trx.raw(statement.sql, statement.params.map((p) => lists[p])),
    newGuests > 0 && !inline ? dialect.nextIds(trx, 'guests', newGuests) : undefined,
  ]);
  const [row] = (dialect.name === 'postgres' ? (result as { rows: ReadRow[] }).rows : result) as ReadRow[];
  const checks = new Map<number, EventChecks>(wanted.eventIds.map((id) => [id, { types: new Set(), questions: new Map(), holders: new CodeHolders() }]));
  for (const [eventId, id] of JSON.parse(row.types) as [number, number][]) checks.get(eventId)?.types.add(Number(id));
  const questionEvents = new Map<number, number>();
  for (const [eventId, id, type, objstatus] of JSON.parse(row.questions) as [number, number, string, number][]) {
    questionEvents.set(id, eventId);
    checks.get(eventId)?.questions.set(id, { id, type, objstatus, choiceIds: new Set() });
  }
  for (const [questionId, id] of JSON.parse(row.choices) as [number, number][]) checks.get(questionEvents.get(questionId)!)?.questions.get(questionId)?.choiceIds.add(id);
  for (const [column, rows] of [['barcode', row.barcodes], ['nfc_tag', row.nfc_tags]] as const) {
    for (const [eventId, id, code] of JSON.parse(rows) as [number, number, string][]) checks.get(eventId)?.holders.hold(column, code, Number(id));
  }
  const visible = (JSON.parse(row.events) as [number, number][]).map(([id, group_id]) => ({ id, group_id }));
  const ids = drawn ?? (inline ? inline.ids(row.last_id, newGuests) : []);
  return { visible, checks, ids };
}
