import type { Knex } from 'knex';
import { hasOwnLetters } from '../../core/fold';
import { searchTerms, type SearchableFields } from '../search-terms';
import { dialectOf } from '../dialect';

// Search spells letters of their own plainly (DESIGN "Check-in": search; core/fold.ts: `ø` o,
// `ß` ss, `ł` l, ...): terms are filed so from now on, and a guest whose searched fields hold
// such a letter has its terms filed again here, so guests added before are found too. Other
// guests' terms are the same either way and stay. Filed as db/search-index.ts files them
// (SQLite: a token `<event id>x<term's UTF-8 in hex>` per term, an FTS5 entry per guest;
// PostgreSQL: a row per term), spelled out here because the search index's module imports
// knex's, which imports the migrations.
const PAGE = 5000;
// Rows a statement: under SQLite's 999 bound variables with two columns, PostgreSQL's with three.
const CHUNK = 300;
const FIELDS = ['first_name', 'last_name', 'email', 'company', 'barcode', 'nfc_tag'] as const;
const MARKS = /\p{M}+/gu;

type Row = SearchableFields & { id: number; event_id: number };

async function refile(knex: Knex, fold?: (text: string) => string): Promise<void> {
  const sqlite = dialectOf(knex).name === 'sqlite';
  for (let after = 0; ; ) {
    const page: Row[] = await knex('guests').where('id', '>', after).orderBy('id').limit(PAGE).select('id', 'event_id', ...FIELDS);
    if (page.length === 0) return;
    after = page[page.length - 1].id;
    const byEvent = new Map<number, Row[]>();
    for (const guest of page) {
      if (!FIELDS.some((f) => hasOwnLetters(guest[f] ?? ''))) continue;
      const own = byEvent.get(guest.event_id);
      if (own) own.push(guest);
      else byEvent.set(guest.event_id, [guest]);
    }
    for (const [eventId, guests] of byEvent) {
      for (let start = 0; start < guests.length; start += CHUNK) {
        const chunk = guests.slice(start, start + CHUNK);
        const ids = chunk.map((g) => g.id);
        const terms = chunk.map((g) => searchTerms(g, fold));
        if (sqlite) {
          await knex('guest_search').whereIn('rowid', ids).delete();
          const entries = chunk.map((g, k) => ({ rowid: g.id, terms: terms[k].map((t) => `${eventId}x${Buffer.from(t, 'utf8').toString('hex')}`).join(' ') }));
          const filed = entries.filter((e) => e.terms);
          if (filed.length) await knex('guest_search').insert(filed);
        } else {
          await knex('guest_search_terms').whereIn('guest_id', ids).delete();
          const rows = chunk.flatMap((g, k) => terms[k].map((term) => ({ event_id: eventId, guest_id: g.id, term })));
          for (let at = 0; at < rows.length; at += CHUNK) await knex('guest_search_terms').insert(rows.slice(at, at + CHUNK));
        }
      }
    }
  }
}

export async function up(knex: Knex): Promise<void> {
  await refile(knex);
}

/** Back to the folding before: marks removed and lower case only. */
export async function down(knex: Knex): Promise<void> {
  await refile(knex, (text) => text.normalize('NFD').replace(MARKS, '').toLowerCase());
}
