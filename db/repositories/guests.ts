import type { Knex } from 'knex';
import type { Conn } from '../knex';
import { whereSearchMatches } from '../search-index';
import { searchWords } from '../search-terms';
import { dialectOf } from '../dialect';
import { apiDatetime, bytesOf, joinedText, jsonArrayText, jsonBool, jsonBoolColumn, jsonFromText, jsonObjectText, textAsBytes } from '../dialect/json';
import type { GUEST_ORDERINGS } from '../../core/messages';
import type { AnswerInput } from '../../core/answers';

/**
 * A guest's row and its reads: one guest, its API JSON, the list's pages. Writes:
 * guest-inserts.ts (new guests, one or a hundred thousand) and guest-updates.ts (a change).
 */


/**
 * A guest's objstatus when deactivated (core's, the door's rule): refused at the door and
 * counted apart in the stats. The index of inactive guests (migration 20261127000000) names
 * the value itself.
 */
export { GUEST_INACTIVE } from '../../core/scan';

export interface GuestRow {
  id: number;
  uid: string;
  event_id: number;
  registration_type_id: number;
  first_name: string;
  last_name: string;
  email: string;
  prefix: string | null;
  suffix: string | null;
  phone: string | null;
  cell_phone: string | null;
  company: string | null;
  job_title: string | null;
  work_phone: string | null;
  blog: string | null;
  website: string | null;
  barcode: string;
  nfc_tag: string | null;
  objstatus: number;
  selfie: string;
  source: string;
  checked_in_at: string | null;
  /** The door must stop for this guest (VIP, age check, access needs). */
  attention: number | boolean;
  notes: string | null;
  created: string;
  modified: string;
}

/** The optional text columns; unset is null. */
export const GUEST_TEXT_FIELDS = [
  'prefix',
  'suffix',
  'phone',
  'cell_phone',
  'company',
  'job_title',
  'work_phone',
  'blog',
  'website',
] as const;

export type GuestFields = Pick<GuestRow, 'registration_type_id' | 'first_name' | 'last_name' | 'email'> &
  Partial<Pick<GuestRow, (typeof GUEST_TEXT_FIELDS)[number] | 'nfc_tag' | 'notes'>> & { barcode?: string | null; attention?: boolean };

/**
 * A guest for the bulk insert. Imports may carry the record's identity and state
 * (uid, times, status, door state) so a merged event file keeps them.
 */
export type GuestInsert = GuestFields & {
  answers?: AnswerInput[];
} & Partial<Pick<GuestRow, 'uid' | 'created' | 'modified' | 'objstatus' | 'selfie' | 'source' | 'checked_in_at'>>;

export interface GuestAnswer {
  question_id: number;
  question_text: string;
  objstatus: string;
  answer: { answer: string; id: string | null }[];
}

export type GuestUpdateFields = Partial<GuestFields & Pick<GuestRow, 'objstatus'>> & { answers?: AnswerInput[] };

// ---------------------------------------------------------------------------------------
// Reads

export async function findGuest(db: Conn, eventId: number, guestId: number): Promise<GuestRow | undefined> {
  return db<GuestRow>('guests').where({ event_id: eventId, id: guestId }).first();
}

/** A guest of the event as its API JSON (the list's form, answers included), as bytes; undefined if none. */
export async function guestJson(db: Conn, eventId: number, guestId: number): Promise<Buffer | undefined> {
  const row: { json: Buffer | string } | undefined = await db('guests as g')
    .where({ 'g.event_id': eventId, 'g.id': guestId })
    .first(db.raw(`${textAsBytes(db, guestJsonSql(db))} as json`));
  if (!row) return undefined;
  return bytesOf(row.json);
}

export type GuestOrdering = (typeof GUEST_ORDERINGS)[number];

export interface GuestListFilter {
  onlyCheckins?: boolean;
  search?: string;
  /** true: only guests who are in; false: only those who are not. */
  checkedIn?: boolean;
  registrationTypeId?: number;
  /** true: guests the door stops for (their own attention or their type's); false: the others. */
  attention?: boolean;
  /** Guests with a standing event-door admission made at this station. */
  station?: string;
  ordering?: GuestOrdering;
}

// Each ordering's columns; ties end on id, so pages never overlap. Names sort as stored.
const ORDER_COLUMNS: Record<string, string[]> = {
  id: ['id'],
  last_name: ['last_name', 'first_name', 'id'],
  first_name: ['first_name', 'last_name', 'id'],
  company: ['company', 'id'],
  registration_type: ['registration_type_id', 'id'],
  checked_in_at: ['checked_in_at', 'id'],
};

// Columns that may be unset: their guests sort last either way, on both databases (SQLite puts
// NULL first and PostgreSQL last by default; knex's own `nulls` option drops the column on SQLite).
const NULLABLE_ORDER_COLUMNS = new Set(['company', 'checked_in_at']);

/** ORDER BY text of an ordering (its columns from the fixed list above, so safe to inline). */
function orderOf(ordering: GuestOrdering = 'id', prefix = ''): string {
  const descending = ordering.startsWith('-');
  const columns = ORDER_COLUMNS[descending ? ordering.slice(1) : ordering];
  return columns.map((column) => `${prefix}${column} ${descending ? 'desc' : 'asc'}${NULLABLE_ORDER_COLUMNS.has(column) ? ' nulls last' : ''}`).join(', ');
}

/** The console's filters (GuestListFilter) on a query of the event's guests. */
function whereFiltered(db: Conn, query: Knex.QueryBuilder, eventId: number, filter: GuestListFilter) {
  if (filter.onlyCheckins || filter.checkedIn === true) query.whereNotNull('checked_in_at');
  if (filter.checkedIn === false) query.whereNull('checked_in_at');
  if (filter.registrationTypeId !== undefined) query.where('registration_type_id', filter.registrationTypeId);
  if (filter.attention !== undefined) {
    const typesWithAttention = db('registration_types').select('id').where({ event_id: eventId, attention: true });
    // Two index reads joined (the flagged few on their partial index, the types' guests on theirs),
    // where an OR would read every guest of the event.
    const flagged = db('guests').select('id').where('event_id', eventId).whereRaw('attention = true');
    const ofTypes = db('guests').select('id').where('event_id', eventId).whereIn('registration_type_id', typesWithAttention);
    const stopped = flagged.union(ofTypes);
    if (filter.attention) query.whereIn('id', stopped);
    else query.whereNotIn('id', stopped);
  }
  if (filter.station !== undefined) {
    query.whereIn('id', db('checkins').select('guest_id').where({ event_id: eventId, station: filter.station, direction: 'in' }).whereNull('session_id').whereNull('undone_at'));
  }
}

/** The guest `g`'s API form, built by the database, its answers included (guestAnswersSql). */
function guestJsonSql(db: Conn): string {
  const columns = ['first_name', 'last_name', 'email', ...GUEST_TEXT_FIELDS, 'barcode', 'nfc_tag'];
  return jsonObjectText(db, [
    ['id', 'g.id'],
    ['event', 'g.event_id'],
    ['registration_type', 'g.registration_type_id'],
    ...columns.map((c): [string, string] => [c, `g.${c}`]),
    ['objstatus', 'cast(g.objstatus as text)'],
    ['selfie', "coalesce(g.selfie, '')"],
    ['source', 'g.source'],
    ['checked_in', jsonBool(db, 'g.checked_in_at is not null')],
    ['checked_in_at', apiDatetime(db, 'g.checked_in_at')],
    ['attention', jsonBoolColumn(db, 'g.attention')],
    ['notes', 'g.notes'],
    ['custom_questions', jsonFromText(db, guestAnswersSql(db))],
    ['created', apiDatetime(db, 'g.created')],
    ['modified', apiDatetime(db, 'g.modified')],
  ]);
}

/**
 * The guest `g`'s answers as the API gives them (GuestAnswer[]), as JSON text: its questions
 * by id, each with its answers (choices in their order, then as given). The guest's own
 * answers are found on their guest_id index and grouped by question; most guests answer
 * nothing, and cost one probe of that index.
 */
export function guestAnswersSql(db: Conn): string {
  const answer = jsonObjectText(db, [
    ['answer', "case when a.choice_id is null then coalesce(a.text_answer, '') else coalesce(c.answer, '') end"],
    ['id', 'cast(a.choice_id as text)'],
  ]);
  const question = jsonObjectText(db, [
    ['question_id', 'x.question_id'],
    ['question_text', 'x.question'],
    ['objstatus', 'x.objstatus'],
    ['answer', jsonFromText(db, 'x.answers')],
  ]);
  const byQuestion =
    `select q.id as question_id, q.question, cast(q.objstatus as text) as objstatus, ${jsonArrayText(answer, 'c.position, c.id, a.id')} as answers ` +
    'from guest_answers a join custom_questions q on q.id = a.question_id left join question_choices c on c.id = a.choice_id ' +
    'where a.guest_id = g.id group by q.id, q.question, q.objstatus';
  const answers = `(select ${jsonArrayText(question, 'x.question_id')} from (${byQuestion}) as x)`;
  return `case when exists (select 1 from guest_answers a where a.guest_id = g.id) then ${answers} else '[]' end`;
}

/**
 * One page of an event's guests, oldest first, with the count of all that match. The page is
 * its guests' API JSON (guestJsonSql) joined by commas, the inside of the response's
 * `results` array, built by the database and handed over as bytes in one piece. Filters
 * narrow on the (event_id, modified) index and the search index (db/search-index.ts). The
 * page's ids are found first on the (event_id, id) index alone, so a late page of a full sync
 * skips the earlier guests' index entries, never their rows.
 */
export async function listGuests(db: Conn, eventId: number, filter: GuestListFilter, page: { limit: number; offset: number; modifiedSince?: string }) {
  const base = db<GuestRow>('guests').where('event_id', eventId);
  if (page.modifiedSince) base.where('modified', '>=', page.modifiedSince);
  whereFiltered(db, base, eventId, filter);
  const words = searchWords(filter.search ?? '');
  whereSearchMatches(db, base, eventId, words);
  const narrowed = filter.onlyCheckins || filter.checkedIn !== undefined || filter.registrationTypeId !== undefined || filter.attention !== undefined || filter.station !== undefined;
  const whole = !page.modifiedSince && !narrowed && words.length === 0;
  const count = whole && dialectOf(db).keepsGuestCounts ? await keptGuestCount(db, eventId) : Number((await base.clone().count({ count: '*' }))[0].count);
  const pageIds = base.clone().select('id').orderByRaw(orderOf(filter.ordering)).limit(page.limit).offset(page.offset);
  const pageJson = db('guests as g').whereIn('g.id', pageIds).orderByRaw(orderOf(filter.ordering, 'g.')).select(db.raw(`${guestJsonSql(db)} as json`));
  const [row] = (await db.from(pageJson.as('p')).select(db.raw(`${textAsBytes(db, joinedText('p.json'))} as guests`))) as { guests: Buffer | string | null }[];
  const guests = row?.guests ?? '';
  return { count, guests: bytesOf(guests) };
}

/** The event's number of guests as the triggers of migration 20261126110000 keep it. */
async function keptGuestCount(db: Conn, eventId: number): Promise<number> {
  const row = await db('event_guest_counts').where({ event_id: eventId }).first('guests');
  if (!row) throw new Error(`event ${eventId} has no kept guest count`);
  return Number(row.guests);
}
