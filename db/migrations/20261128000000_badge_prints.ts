import type { Knex } from 'knex';

// Badges (issue 39): each event has a label size, and every badge printed is one row, so a
// reprint is visible and the log travels in event files and sync like check-ins (by uid).
// `printed_by` names the local user or key (`user:<id>`, `key:<id>`, as checkins.scanned_by)
// and stays on this laptop; `printed_by_name` is what other laptops read.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.string('badge_size', 16).notNullable().defaultTo('A6');
  });
  await knex.schema.createTable('badge_prints', (t) => {
    t.increments('id').primary();
    t.string('uid', 36).notNullable().unique();
    t.datetime('created').notNullable();
    t.datetime('modified').notNullable();
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.integer('guest_id').unsigned().notNullable().references('id').inTable('guests').onDelete('CASCADE');
    t.string('station', 128);
    t.string('printed_by', 32);
    t.string('printed_by_name', 255);
    t.datetime('printed_at').notNullable();
    t.index(['event_id', 'modified']);
    // A guest's prints (the door's reprint count, "not yet printed", the cascade of a removed guest).
    t.index(['guest_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('badge_prints');
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('badge_size');
  });
}
