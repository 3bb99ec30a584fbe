import type { Knex } from 'knex';

// A custom question may be shown at the door (DESIGN "Check-in": show_at_door): a scan's
// guest then carries the guest's answers to it. False keeps every question as it was.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('custom_questions', (t) => {
    t.boolean('show_at_door').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('custom_questions', (t) => {
    t.dropColumn('show_at_door');
  });
}
