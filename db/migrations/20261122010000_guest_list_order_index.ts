import type { Knex } from 'knex';

// The guest list pages in id order; without this SQLite picked another (event_id, ...) index
// and sorted all 100k guests of an event for every page of a full sync.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('guests', (t) => {
    t.index(['event_id', 'id'], 'guests_event_id_id_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('guests', (t) => {
    t.dropIndex(['event_id', 'id'], 'guests_event_id_id_index');
  });
}
