import type { Knex } from 'knex';
import { dialectOf } from '../dialect';

// A SQLite laptop stored the times a scan records in the API's form (`…T04:06:58`), where every
// other server time is stored as an instant (`…T04:06:58.000Z`) and PostgreSQL's timestamptz
// reads back the same; so an event file with scans differed in bytes between the databases.
// Scans now store the instant form (core/time.ts storedInstant); this rewrites what was stored
// before. PostgreSQL's columns hold instants already.
const SCAN_TIMES: [table: string, column: string][] = [
  ['checkins', 'scanned_at'],
  ['guests', 'checked_in_at'],
];
const INSTANT = "strftime('%Y-%m-%dT%H:%M:%fZ', ??)";

export async function up(knex: Knex): Promise<void> {
  if (dialectOf(knex).name !== 'sqlite') return;
  for (const [table, column] of SCAN_TIMES) {
    await knex.raw(`update ?? set ?? = ${INSTANT} where ?? not like '____-__-__T__:__:__.___Z' and ${INSTANT} is not null`, [table, column, column, column, column]);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (dialectOf(knex).name !== 'sqlite') return;
  for (const [table, column] of SCAN_TIMES) await knex.raw('update ?? set ?? = substr(??, 1, 19) where ?? is not null', [table, column, column, column]);
}
