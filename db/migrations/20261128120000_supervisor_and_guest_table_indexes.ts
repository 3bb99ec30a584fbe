import type { Knex } from 'knex';

// Issue 38. The console's guest table sorts by name and filters on attention at 100,000
// guests, and the supervisor view reads each station's last scan and recent rate on every poll.
// - guests (event_id, last_name, first_name, id): a page sorted by name walks the index instead
//   of sorting every guest of the event (100k: 60-280 ms a page without it).
// - guests (event_id) where attention: the few guests flagged themselves, so the attention
//   filter reads those and the types' guests instead of every row (300-500 ms without it).
// - checkins (event_id, station, scanned_at): a station's last scan and its scans of the last
//   minutes are one index seek each; the guest table's station filter starts from it too.
const NAME_INDEX = 'guests_event_name_index';
const ATTENTION_INDEX = 'guests_event_attention_index';
const STATION_TIME_INDEX = 'checkins_event_station_time_index';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('guests', (t) => {
    t.index(['event_id', 'last_name', 'first_name', 'id'], NAME_INDEX);
    // `= true` reads the same on both databases (SQLite's TRUE is 1, what it stores).
    t.index(['event_id'], ATTENTION_INDEX, { predicate: knex.whereRaw('attention = true') });
  });
  await knex.schema.alterTable('checkins', (t) => {
    t.index(['event_id', 'station', 'scanned_at'], STATION_TIME_INDEX);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('guests', (t) => {
    t.dropIndex([], NAME_INDEX);
    t.dropIndex([], ATTENTION_INDEX);
  });
  await knex.schema.alterTable('checkins', (t) => {
    t.dropIndex([], STATION_TIME_INDEX);
  });
}
