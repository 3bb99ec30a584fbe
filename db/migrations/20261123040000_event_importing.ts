import type { Knex } from 'knex';

// An event file for a new event is written in short transactions under an event that no
// one sees until the last one reveals it (null), so the door never waits behind an import.
// The time it began lets an import abandoned by a crash be cleared away later.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.datetime('importing_since');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('importing_since');
  });
}
