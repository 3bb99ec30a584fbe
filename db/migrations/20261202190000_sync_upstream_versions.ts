import type { Knex } from 'knex';

// What a follower knows its upstream holds (issue 46): per record, the latest version (its
// `modified`) that came down in a pull or went up in an acknowledged push. Its own push leaves
// out a record whose version here is no later, so what came from the upstream is not sent
// back. A fact about the upstream, not a change: losing a row only means a no-op push.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sync_upstream_versions', (t) => {
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.string('table_name', 32).notNullable();
    t.string('uid', 64).notNullable();
    t.datetime('modified').notNullable();
    t.primary(['event_id', 'table_name', 'uid']);
    t.index(['event_id', 'modified']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sync_upstream_versions');
}
