import type { Knex } from 'knex';

/**
 * Roles for users and API keys (existing ones become managers, as they were), the claim that
 * makes first-run set-up happen once even when two requests race, and who made each scan so a
 * door may undo its own scans and only those.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.string('role', 16).notNullable().defaultTo('manager').checkIn(['manager', 'door']);
    // Set (true) only on the administrator made by first-run set-up; unique, so two concurrent
    // set-ups cannot both insert one: the second fails on the index and answers 409.
    t.boolean('first_run_claim');
    t.unique(['first_run_claim'], { indexName: 'users_first_run_claim_unique' });
  });
  await knex.schema.alterTable('api_keys', (t) => {
    t.string('role', 16).notNullable().defaultTo('manager').checkIn(['manager', 'door']);
  });
  await knex.schema.alterTable('checkins', (t) => {
    // `key:<id>` or `user:<id>` (ids are never reused); null for scans from event files.
    t.string('scanned_by', 32);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkins', (t) => {
    t.dropColumn('scanned_by');
  });
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('role');
  });
  await knex.schema.alterTable('users', (t) => {
    t.dropUnique(['first_run_claim'], 'users_first_run_claim_unique');
    t.dropColumn('first_run_claim');
    t.dropColumn('role');
  });
}
