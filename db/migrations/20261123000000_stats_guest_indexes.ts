import type { Knex } from 'knex';

// The door's stats count guests per registration type, in and not in, and the inactive ones
// from these indexes alone (db/repositories/stats.ts), instead of reading all 100k guest rows
// of the event on every poll while door scans wait for the connection.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('guests', (t) => {
    t.index(['event_id', 'registration_type_id', 'checked_in_at'], 'guests_event_type_checked_in_index');
    t.index(['event_id', 'objstatus'], 'guests_event_objstatus_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('guests', (t) => {
    t.dropIndex([], 'guests_event_type_checked_in_index');
    t.dropIndex([], 'guests_event_objstatus_index');
  });
}
