import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createDb, migrateLatest, type Conn } from '../../db/knex';
import { insertUserIfAbsent } from '../../db/repositories/users';
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

// What decides a template's content: the schema's code and how a password is stored.
const ROOT = path.resolve(__dirname, '..', '..');
const TEMPLATE_SOURCES = ['db/migrations', 'db/dialect', 'db/knex.ts', 'db/search-terms.ts', 'db/repositories/users.ts', 'server/secrets.ts'];
const TEMPLATES = path.join(os.tmpdir(), 'doorlist-test-templates');
const templates = new Map<string, Promise<string>>();

function sourceDigest(admin?: { username: string; password: string }): string {
  const hash = createHash('sha256').update(JSON.stringify(admin ?? null));
  const add = (file: string) => {
    if (fs.statSync(file).isDirectory()) for (const name of fs.readdirSync(file).sort()) add(path.join(file, name));
    else hash.update(file).update(fs.readFileSync(file));
  };
  for (const source of TEMPLATE_SOURCES) add(path.join(ROOT, source));
  return hash.digest('hex').slice(0, 16);
}

/**
 * A migrated SQLite file, with this administrator when given, copied for each test server:
 * copying takes a millisecond where migrating takes about 80 and hashing the password (scrypt)
 * about 75, twice a server (its start and the first sign-in). Made once for every test process
 * (like tsx's cache, in the temporary folder), named by a digest of the code that decides its
 * content, so a changed migration makes a new one.
 */
function sqliteTemplate(admin?: { username: string; password: string }): Promise<string> {
  const key = JSON.stringify(admin ?? null);
  let made = templates.get(key);
  if (!made) {
    const file = path.join(TEMPLATES, `${sourceDigest(admin)}.sqlite`);
    made = (async () => {
      if (fs.existsSync(file)) return file;
      fs.mkdirSync(TEMPLATES, { recursive: true });
      // Made beside and renamed into place: processes making it at once never see half of it.
      const making = `${file}.${process.pid}.making`;
      const db = createDb(making);
      try {
        await migrateLatest(db);
        if (admin) {
          // Loaded only here: test/api/startup.test.ts counts scrypt calls with a mock set up
          // before server/secrets takes node:crypto's scrypt.
          const { hashPassword } = await import('../../server/secrets');
          await insertUserIfAbsent(db, { username: admin.username, password_hash: await hashPassword(admin.password), is_admin: true });
        }
        // Everything in the file itself, so copying the file alone copies the database.
        await db.raw('pragma wal_checkpoint(truncate)');
      } finally {
        await db.destroy();
      }
      for (const extra of ['-wal', '-shm']) fs.rmSync(making + extra, { force: true });
      fs.renameSync(making, file);
      return file;
    })();
    templates.set(key, made);
  }
  return made;
}

/**
 * A test server's database in `dir`: on SQLite a copy of a migrated file that already holds
 * `admin` (`holdsAdmin`); on PostgreSQL a new, empty database that the server migrates and
 * where it makes the administrator of DOORLIST_ADMIN_*.
 */
export async function createServerDatabase(dir: string, admin?: { username: string; password: string }): Promise<TestDatabase & { holdsAdmin: boolean }> {
  const database = await createTestDatabase(dir);
  if (TEST_PG) return { ...database, holdsAdmin: false };
  fs.copyFileSync(await sqliteTemplate(admin), database.setting);
  return { ...database, holdsAdmin: admin !== undefined };
}

/** Guests with search terms filed, over every event: what a table count sees of the search index. */
export async function searchableGuests(db: Conn): Promise<number> {
  let total = 0;
  for (const eventId of await db('events').pluck('id')) total += await guestsWithSearchTerms(db, eventId);
  return total;
}
