import type { Knex } from 'knex';
import type { Conn } from './knex';
import { chunks, insertTuples, IN_LIST } from './bulk';
import { dialectOf } from './dialect';
import type { BatchTerms } from './search-terms';

/**
 * Where guests' search terms are filed, each under an event: the one place they are kept
 * differently on SQLite and on PostgreSQL.
 *
 * SQLite: `guest_search`, an FTS5 index with one entry per guest (its rowid the guest's id)
 * holding each term as the token `<event id>x<the term's UTF-8 in hex>`. Hex keeps a term one
 * token whatever it holds, and a word's hex prefixes a term's hex exactly when the word
 * prefixes the term; the event in front keeps a prefix to the event. A row per term, with its
 * two indexes, cost an import three times as long, and two common words in one search made
 * SQLite's planner try every pair of their guest lists (minutes at 100,000 guests).
 * A trigger on guests forgets a removed guest's entry (migration 20261126140000).
 *
 * PostgreSQL: `guest_search_terms`, a row per term, searched by prefix ranges on its
 * (event_id, term) index (binary collation, see Dialect.binaryCollation).
 */

const isSqlite = (db: Conn) => dialectOf(db).name === 'sqlite';

function token(eventId: number, term: string): string {
  return `${eventId}x${Buffer.from(term, 'utf8').toString('hex')}`;
}

/** The FTS5 query for guests with a term under the event that each word prefixes. */
function fullTextQuery(eventId: number, words: readonly string[]): string {
  return words.map((w) => `"${token(eventId, w)}"*`).join(' AND ');
}

// The highest code point: `term < w || TOP` bounds a prefix range under binary collation.
const TOP = '\u{10FFFF}';

/**
 * A batch's terms made ready to file under an event once its guests have ids: worked out
 * before the transaction that files them where the caller can (a CSV import does it while
 * the batch before is written). On SQLite each guest's tokens are spelled out here.
 */
export interface PreparedSearchTerms {
  readonly eventId: number;
  readonly terms: BatchTerms;
  readonly tokens?: readonly string[];
}

export function prepareSearchTerms(db: Conn, eventId: number, terms: BatchTerms): PreparedSearchTerms {
  return isSqlite(db) ? { eventId, terms, tokens: fullTextTokens(eventId, terms) } : { eventId, terms };
}

/**
 * Each guest's FTS5 text: its terms as tokens, space-separated. The batch is hex-encoded in one
 * go (a Buffer per term cost twice as much) when it is ASCII, where a term's hex is exactly
 * twice its length; otherwise term by term.
 */
export function fullTextTokens(eventId: number, terms: BatchTerms): string[] {
  const joined = terms.map((own) => own.join('')).join('');
  const hex = Buffer.from(joined, 'utf8').toString('hex');
  if (hex.length !== joined.length * 2) return terms.map((own) => own.map((t) => token(eventId, t)).join(' '));
  const prefix = `${eventId}x`;
  let at = 0;
  return terms.map((own) =>
    own
      .map((t) => {
        at += t.length * 2;
        return prefix + hex.slice(at - t.length * 2, at);
      })
      .join(' '),
  );
}

/** SQLite's `guest_search` rows (rowid, tokens) for a batch: a guest without terms has none. */
export function fullTextEntries(tokens: readonly string[], ids: readonly number[]): [number, string][] {
  const entries: [number, string][] = [];
  ids.forEach((id, k) => {
    if (tokens[k]) entries.push([id, tokens[k]]);
  });
  return entries;
}

/** Files each guest's terms under `eventId`, `ids[k]` the id of the guest whose terms are `terms[k]`. */
export async function fileSearchTerms(trx: Conn, eventId: number, terms: BatchTerms, ids: readonly number[]): Promise<void> {
  await filePreparedSearchTerms(trx, prepareSearchTerms(trx, eventId, terms), ids);
}

/** Files prepared terms, `ids[k]` the id of the guest whose terms are `prepared.terms[k]`. */
export async function filePreparedSearchTerms(trx: Conn, prepared: PreparedSearchTerms, ids: readonly number[]): Promise<void> {
  if (prepared.tokens) {
    await insertTuples(trx, 'guest_search', ['rowid', 'terms'], fullTextEntries(prepared.tokens, ids));
    return;
  }
  // Sorted by term, so they land in the (event_id, term) index in order.
  const { eventId, terms } = prepared;
  const rows = terms.flatMap((own, k) => own.map((term): [number, number, string] => [eventId, ids[k], term]));
  rows.sort((a, b) => (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : a[1] - b[1]));
  await insertTuples(trx, 'guest_search_terms', ['event_id', 'guest_id', 'term'], rows);
}

/** Forgets guests' terms (before they are filed again): a statement for a few hundred guests. */
export async function forgetSearchTerms(trx: Conn, guestIds: readonly number[]): Promise<void> {
  for (const part of chunks(guestIds, IN_LIST)) {
    if (isSqlite(trx)) await trx('guest_search').whereIn('rowid', part).delete();
    else await trx('guest_search_terms').whereIn('guest_id', part).delete();
  }
}

/** Narrows a query of the event's guests (`guests.id` as `id`) to those for whom each word prefixes a term. */
export function whereSearchMatches<Q extends Knex.QueryBuilder>(db: Conn, query: Q, eventId: number, words: readonly string[]): Q {
  if (words.length === 0) return query;
  if (isSqlite(db)) return query.whereIn('id', db('guest_search').select('rowid').whereRaw('guest_search match ?', [fullTextQuery(eventId, words)])) as Q;
  for (const word of words) {
    query.whereIn('id', db('guest_search_terms').distinct('guest_id').where('event_id', eventId).andWhere('term', '>=', word).andWhere('term', '<', word + TOP));
  }
  return query;
}

/** How many guests have terms filed under the event: what an import's clean-up must bring back. */
export async function guestsWithSearchTerms(db: Conn, eventId: number): Promise<number> {
  const row = isSqlite(db)
    ? await db('guest_search').whereRaw('guest_search match ?', [`"${eventId}x"*`]).count({ n: '*' }).first()
    : await db('guest_search_terms').where('event_id', eventId).countDistinct({ n: 'guest_id' }).first();
  return Number(row?.n ?? 0);
}

// Fewer new guests than this mislead the planner little (joining a thousand pair by pair takes
// milliseconds), and a sync's small deltas, merged as event files, then cost no ANALYZE.
const STALE_AFTER_GUESTS = 1000;

/**
 * After an import added `guestsAdded` guests at once. PostgreSQL plans by table statistics that
 * autovacuum refreshes a minute or more later: until then a new event's guests and terms look
 * like a row or two, and a search of two common words would join every pair of their lists
 * (seconds at a few thousand guests). SQLite plans without statistics (Doorlist never runs its ANALYZE).
 */
export async function refreshSearchStatistics(db: Conn, guestsAdded: number): Promise<void> {
  if (!isSqlite(db) && guestsAdded >= STALE_AFTER_GUESTS) await db.raw('analyze guests, guest_search_terms');
}
