import type { Knex } from 'knex';

// Removing a guest makes the database find its check-ins (ON DELETE CASCADE) by guest_id
// alone. The index began with event_id, so every removed guest read the whole checkins
// table: 2,000 staged guests of a refused import took 9.5 s to discard beside 50,000
// check-ins, the writer held all along. With guest_id first the same index serves that
// lookup and every (event_id, guest_id) one as before, so a check-in still writes five
// index entries.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkins', (t) => {
    t.index(['guest_id', 'event_id', 'session_id'], 'checkins_guest_id_event_id_session_id_index');
    t.dropIndex(['event_id', 'guest_id', 'session_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkins', (t) => {
    t.index(['event_id', 'guest_id', 'session_id']);
    t.dropIndex([], 'checkins_guest_id_event_id_session_id_index');
  });
}
