import type { Knex } from 'knex';

// Issue 44: a door station renamed in its settings keeps its history under its new name in the
// supervisor view, across a server restart. One row per old name that has scans at the event,
// naming the station it is now (one hop: a later rename rewrites the rows that pointed at the
// name it leaves). Local to this server, as the heartbeats are; scans keep the name they had.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('station_renames', (t) => {
    t.increments('id').primary();
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.string('from_name', 128).notNullable();
    t.string('to_name', 128).notNullable();
    t.datetime('created').notNullable();
    t.unique(['event_id', 'from_name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('station_renames');
}
