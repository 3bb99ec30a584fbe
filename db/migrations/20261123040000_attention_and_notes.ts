import type { Knex } from 'knex';

// The door stops for some guests (VIP, age check, access needs): a guest may carry
// `attention` and free-text `notes`, and a registration type `attention` for all its guests.
// Defaults keep every existing row and client as it was.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('guests', (t) => {
    t.boolean('attention').notNullable().defaultTo(false);
    t.text('notes').nullable();
  });
  await knex.schema.alterTable('registration_types', (t) => {
    t.boolean('attention').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('registration_types', (t) => {
    t.dropColumn('attention');
  });
  await knex.schema.alterTable('guests', (t) => {
    t.dropColumn('notes');
    t.dropColumn('attention');
  });
}
