import type { Knex } from 'knex';

// A merge into an existing event is applied in short transactions (issue 35): each notes here,
// in its own transaction, what it inserted, changed (the columns before and after) and
// deleted, under the id of the hidden event that marks the merge as under way. A merge that
// fails or whose process dies is undone from these notes (discardHiddenEvent); one that
// finishes drops its marker, and its notes are then forgotten.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('merge_journal', (t) => {
    t.increments('id').primary();
    t.integer('merge_id').notNullable();
    t.string('table_name', 64).notNullable();
    t.integer('row_id').notNullable();
    t.string('kind', 8).notNullable();
    t.text('before');
    t.text('after');
    t.index(['merge_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('merge_journal');
}
