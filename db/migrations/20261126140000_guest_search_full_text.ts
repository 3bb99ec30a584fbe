import type { Knex } from 'knex';
import { dialectOf } from '../dialect';
import { batchSearchTerms } from '../search-terms';

// On SQLite guests' search terms move from a row per term to an FTS5 index, an entry per guest
// (why, and the token's form, in db/search-index.ts). PostgreSQL keeps its rows.
const FORGET_TRIGGER = 'guest_search_forget';

export async function up(knex: Knex): Promise<void> {
  if (dialectOf(knex).name !== 'sqlite') return;
  // content='': the terms are kept only as the index (never read back); contentless_delete
  // lets an entry be removed by its rowid alone; detail=none: no positions, a match is all.
  await knex.raw("create virtual table guest_search using fts5(terms, content='', contentless_delete=1, detail=none, tokenize='ascii')");
  await knex.raw("insert into guest_search (rowid, terms) select guest_id, group_concat(event_id || 'x' || lower(hex(term)), ' ') from guest_search_terms group by guest_id");
  await knex.raw(`create trigger ${FORGET_TRIGGER} after delete on guests begin delete from guest_search where rowid = old.id; end`);
  await knex.schema.dropTable('guest_search_terms');
}

export async function down(knex: Knex): Promise<void> {
  if (dialectOf(knex).name !== 'sqlite') return;
  await knex.schema.createTable('guest_search_terms', (t) => {
    t.increments('id').primary();
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.integer('guest_id').unsigned().notNullable().references('id').inTable('guests').onDelete('CASCADE');
    t.string('term', 255).notNullable();
    t.index(['event_id', 'term']);
    t.index(['guest_id']);
  });
  // The index cannot give its terms back: they are worked out again from the guests.
  const PAGE = 2000;
  for (let after = 0; ; ) {
    const guests = await knex('guests').where('id', '>', after).orderBy('id').limit(PAGE).select('id', 'event_id', 'first_name', 'last_name', 'email', 'company', 'barcode', 'nfc_tag');
    if (guests.length === 0) break;
    const rows = batchSearchTerms(guests).flatMap((terms, k) => terms.map((term) => ({ event_id: guests[k].event_id, guest_id: guests[k].id, term })));
    for (let start = 0; start < rows.length; start += 300) await knex('guest_search_terms').insert(rows.slice(start, start + 300));
    after = guests[guests.length - 1].id;
  }
  await knex.raw(`drop trigger if exists ${FORGET_TRIGGER}`);
  await knex.schema.dropTable('guest_search');
}
