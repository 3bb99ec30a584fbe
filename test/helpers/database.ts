import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import type { Conn } from '../../db/knex';
import { guestsWithSearchTerms } from '../../db/search-index';

/**
 * DOORLIST_TEST_PG (an admin URL, e.g. `postgres://postgres@127.0.0.1:5432/postgres`) runs the
 * API tests on PostgreSQL: every test server gets a database of its own. Unset or empty: SQLite.
 */
export const TEST_PG = process.env.DOORLIST_TEST_PG || undefined;

export interface TestDatabase {
  /** What DOORLIST_DB would say: a SQLite file or a PostgreSQL URL. */
  setting: string;
  drop(): Promise<void>;
}

async function asAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_PG });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, empty database for one test server: `doorlist.sqlite` in `dir`, or a new PostgreSQL
 * database. Those are made with an ICU en-US collation, not C, so the suite proves that
 * ordering and prefix search do not depend on the database's collation.
 */
export async function createTestDatabase(dir: string): Promise<TestDatabase> {
  if (!TEST_PG) return { setting: path.join(dir, 'doorlist.sqlite'), drop: async () => {} };
  const name = `doorlist_test_${randomBytes(6).toString('hex')}`;
  await asAdmin(async (client) => {
    try {
      await client.query(`create database ${name} template template0 encoding 'UTF8' locale_provider icu icu_locale 'en-US' locale 'C.UTF-8'`);
    } catch {
      // A PostgreSQL built without ICU: the server's default collation.
      await client.query(`create database ${name}`);
    }
  });
  const url = new URL(TEST_PG);
  url.pathname = `/${name}`;
  return {
    setting: url.toString(),
    drop: () => asAdmin((client) => client.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

/** Guests with search terms filed, over every event: what a table count sees of the search index. */
export async function searchableGuests(db: Conn): Promise<number> {
  let total = 0;
  for (const eventId of await db('events').pluck('id')) total += await guestsWithSearchTerms(db, eventId);
  return total;
}
