import type { Knex } from 'knex';
import { fileSearchTerms } from '../search-index';
import { searchTerms, type SearchableFields } from '../search-terms';
import { dialectOf } from '../dialect';

// Search ignores accents as well as case (DESIGN "Check-in": search): terms are filed folded
// (core/fold.ts) from now on, and a guest whose searched fields hold anything but ASCII has
// its terms filed again here. An ASCII guest's terms are the same either way and stay.
const PAGE = 5000;
const FIELDS = ['first_name', 'last_name', 'email', 'company', 'barcode', 'nfc_tag'] as const;
const NOT_ASCII = /[^\x00-\x7f]/;

type Row = SearchableFields & { id: number; event_id: number };

async function refile(knex: Knex, fold?: (text: string) => string): Promise<void> {
  const sqlite = dialectOf(knex).name === 'sqlite';
  for (let after = 0; ; ) {
    const page: Row[] = await knex('guests').where('id', '>', after).orderBy('id').limit(PAGE).select('id', 'event_id', ...FIELDS);
    if (page.length === 0) return;
    after = page[page.length - 1].id;
    const byEvent = new Map<number, Row[]>();
    for (const guest of page) {
      if (!FIELDS.some((f) => NOT_ASCII.test(guest[f] ?? ''))) continue;
      byEvent.set(guest.event_id, [...(byEvent.get(guest.event_id) ?? []), guest]);
    }
    for (const [eventId, guests] of byEvent) {
      const ids = guests.map((g) => g.id);
      for (let start = 0; start < ids.length; start += 500) {
        const chunk = ids.slice(start, start + 500);
        if (sqlite) await knex('guest_search').whereIn('rowid', chunk).delete();
        else await knex('guest_search_terms').whereIn('guest_id', chunk).delete();
      }
      await fileSearchTerms(knex, eventId, guests.map((g) => searchTerms(g, fold)), ids);
    }
  }
}

export async function up(knex: Knex): Promise<void> {
  await refile(knex);
}

export async function down(knex: Knex): Promise<void> {
  await refile(knex, (text) => text.toLowerCase());
}
