import type { Knex } from 'knex';

// The door's stats count check-ins per station and arrivals per time bucket from these
// indexes alone (db/repositories/stats.ts), instead of reading every check-in row of the
// event and sorting them for GROUP BY on every poll while door scans wait for the connection.
// The arrivals index starts with (event_id, session_id), so it takes over that index's
// lookups; nothing looked check-ins up by (event_id, scanned_at) but the arrivals figure
// (elsewhere it only narrowed to the event, as the other event_id indexes do). Both go, so a
// check-in still writes five index entries.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkins', (t) => {
    // guest_id: session attendance counts distinct guests from this index too.
    t.index(['event_id', 'session_id', 'undone_at', 'direction', 'scanned_at', 'guest_id'], 'checkins_arrivals_index');
    t.index(['event_id', 'undone_at', 'station', 'direction'], 'checkins_stations_index');
    t.dropIndex(['event_id', 'session_id']);
    t.dropIndex(['event_id', 'scanned_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkins', (t) => {
    t.index(['event_id', 'session_id']);
    t.index(['event_id', 'scanned_at']);
    t.dropIndex([], 'checkins_arrivals_index');
    t.dropIndex([], 'checkins_stations_index');
  });
}
