import type { Knex } from 'knex';

function recordColumns(t: Knex.CreateTableBuilder): void {
  t.increments('id').primary();
  t.string('uid', 36).notNullable().unique();
  t.datetime('created').notNullable();
  t.datetime('modified').notNullable();
}

// Following an upstream Doorlist (issue 16). The cursors live in the database beside the data
// they describe, so a killed laptop resumes where its last committed merge left off: what is
// pending to push is simply what changed here after push_cursor.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('syncs', (t) => {
    recordColumns(t);
    t.integer('event_id').unsigned().notNullable().unique().references('id').inTable('events').onDelete('CASCADE');
    t.string('url', 2048).notNullable();
    t.integer('remote_event_id').notNullable();
    // The upstream's API key: kept on this laptop only, never answered by the API.
    t.string('upstream_key', 255).notNullable();
    // This laptop's clock: local changes modified after it are not yet confirmed upstream.
    t.string('push_cursor', 32).notNullable();
    // The upstream's clock, as it answered with the last merged pull.
    t.string('pull_cursor', 32).notNullable();
    t.string('last_push_at', 32);
    t.string('last_pull_at', 32);
    t.string('state', 16).notNullable().defaultTo('ok');
    t.text('error');
  });
  // Found on either side of a merge, by either laptop; one row per pair of admissions.
  await knex.schema.createTable('sync_double_admissions', (t) => {
    recordColumns(t);
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.string('guest_uid', 36).notNullable();
    t.string('first_checkin_uid', 64).notNullable();
    t.string('first_station', 128);
    t.string('first_scanned_at', 32).notNullable();
    t.string('second_checkin_uid', 64).notNullable();
    t.string('second_station', 128);
    t.string('second_scanned_at', 32).notNullable();
    t.unique(['event_id', 'first_checkin_uid', 'second_checkin_uid']);
  });
  await knex.schema.createTable('sync_conflicts', (t) => {
    recordColumns(t);
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.string('table_name', 64).notNullable();
    t.string('record_uid', 64).notNullable();
    t.string('kind', 32).notNullable();
    t.string('value', 255);
    t.string('resolution', 255).notNullable();
    t.unique(['event_id', 'table_name', 'record_uid', 'kind']);
  });
  // Changes merged here from elsewhere keep the `modified` they were made with, which may be
  // older than a cursor; each arrival is noted so a later pull (or, for what a follower
  // pushed here, this laptop's own push to its upstream) reaches back for it.
  await knex.schema.createTable('sync_arrivals', (t) => {
    t.increments('id').primary();
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.string('received_at', 32).notNullable();
    t.string('oldest_modified', 32).notNullable();
    // 'push': sent here by a follower; 'pull': fetched from this laptop's own upstream.
    t.string('via', 8).notNullable();
    t.index(['event_id', 'received_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sync_arrivals');
  await knex.schema.dropTable('sync_conflicts');
  await knex.schema.dropTable('sync_double_admissions');
  await knex.schema.dropTable('syncs');
}
