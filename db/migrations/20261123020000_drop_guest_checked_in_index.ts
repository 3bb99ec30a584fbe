import type { Knex } from 'knex';

// Every event-door scan moves the guest's checked_in_at, so every index holding it is
// rewritten per scan. (event_id, checked_in_at) served the stats, which now count from
// (event_id, registration_type_id, checked_in_at); the guest list's only_checkins pages in
// id order through (event_id, id) and counts from the stats index.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('guests', (t) => {
    t.dropIndex(['event_id', 'checked_in_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('guests', (t) => {
    t.index(['event_id', 'checked_in_at']);
  });
}
