import type { Knex } from 'knex';
import { dialectOf } from '../dialect';

// What one central database shared by several server processes needs:
// - prefix search reads term ranges, which hold only under binary order: SQLite's default,
//   not a PostgreSQL database's collation (en_US, ICU), so the column compares bytes there;
// - an outbox e-mail is claimed (compare-and-set on claimed_until) before it is sent, so two
//   processes never both send it;
// - sign-in attempts are counted in the database, so the login limit holds across processes.
export async function up(knex: Knex): Promise<void> {
  await dialectOf(knex).binaryCollation(knex, 'guest_search_terms', 'term', 255);
  await knex.schema.alterTable('outbox', (t) => {
    t.datetime('claimed_until');
  });
  await knex.schema.createTable('login_attempts', (t) => {
    // What the limiter counts by (the client's address).
    t.string('key', 255).primary();
    t.integer('hits').notNullable();
    t.datetime('reset_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('login_attempts');
  await knex.schema.alterTable('outbox', (t) => {
    t.dropColumn('claimed_until');
  });
}
