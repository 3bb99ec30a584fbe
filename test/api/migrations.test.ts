import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createDb, migrateLatest } from '../../db/knex';
import { createTestDatabase, TEST_PG } from '../helpers/database';
import { rec } from '../helpers/event-files';
import { listGuests } from '../../db/repositories/guests';
import { insertGuests } from '../../db/repositories/guest-inserts';
import { eventStats } from '../../db/repositories/stats';

describe('migrations', () => {
  it('run latest, rollback and latest again on a fresh file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-migrate-'));
    const db = createDb(path.join(dir, 'nested', 'folders', 'db.sqlite'));
    try {
      await db.migrate.latest();
      const tables = async () => (await db('sqlite_master').where({ type: 'table' }).pluck('name')).filter((n: string) => !n.startsWith('knex_') && n !== 'sqlite_sequence').sort();
      const created = await tables();
      for (const table of ['users', 'tokens', 'api_keys', 'groups', 'events', 'registration_types', 'custom_questions', 'question_choices', 'guests', 'guest_answers', 'sessions', 'session_tags', 'tracks', 'session_registrations', 'checkins', 'promotion_codes', 'outbox']) {
        assert.ok(created.includes(table), table);
      }
      await db.migrate.rollback(undefined, true);
      assert.deepEqual(await tables(), []);
      await db.migrate.latest();
      assert.deepEqual(await tables(), created);
    } finally {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('opens SQLite in WAL mode with foreign keys on and unique barcodes per event', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-pragmas-'));
    const db = createDb(path.join(dir, 'db.sqlite'));
    try {
      await db.migrate.latest();
      assert.equal((await db.raw('PRAGMA journal_mode'))[0].journal_mode, 'wal');
      assert.equal((await db.raw('PRAGMA foreign_keys'))[0].foreign_keys, 1);
      const indexes = await db.raw("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'guests'");
      const names = indexes.map((i: { name: string }) => i.name);
      assert.ok(names.includes('guests_event_barcode_unique'));
      assert.ok(names.includes('guests_event_nfc_tag_unique'));
    } finally {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds the rows that refer to a removed row by index, never by reading a whole table', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-cascade-'));
    const db = createDb(path.join(dir, 'db.sqlite'));
    try {
      await db.migrate.latest();
      // Every foreign-key column (what ON DELETE CASCADE / SET NULL looks rows up by) leads an
      // index, or is its table's own rowid key.
      const tables = (await db('sqlite_master').where({ type: 'table' }).pluck('name')) as string[];
      const checked: string[] = [];
      for (const table of tables) {
        const keys = (await db.raw(`PRAGMA foreign_key_list(${table})`)) as { table: string; from: string }[];
        const indexes = (await db.raw(`PRAGMA index_list(${table})`)) as { name: string }[];
        const leading = await Promise.all(indexes.map(async (i) => ((await db.raw(`PRAGMA index_info(${i.name})`)) as { seqno: number; name: string }[]).find((c) => c.seqno === 0)?.name));
        const rowidKey = ((await db.raw(`PRAGMA table_info(${table})`)) as { name: string; type: string; pk: number }[]).find((c) => c.pk === 1 && /^integer$/i.test(c.type))?.name;
        for (const key of keys) {
          checked.push(`${table}.${key.from}`);
          assert.ok(leading.includes(key.from) || key.from === rowidKey, `${table}.${key.from} leads no index`);
        }
      }
      for (const key of ['checkins.guest_id', 'guest_answers.guest_id', 'checkins.session_id', 'guest_answers.choice_id', 'scan_replies.event_id']) assert.ok(checked.includes(key), key);
      // And the database uses them: removing a guest, an event, a session or a choice reads no whole table.
      for (const table of ['guests', 'events', 'sessions', 'question_choices']) {
        const plan = ((await db.raw(`EXPLAIN QUERY PLAN DELETE FROM ${table} WHERE id = 1`)) as { detail: string }[]).map((r) => r.detail);
        assert.deepEqual(plan.filter((step) => step.startsWith('SCAN')), [], `${table}:\n${plan.join('\n')}`);
      }
    } finally {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('holds only inactive guests and NFC-tagged guests in their two indexes, and the stats use theirs', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-partial-'));
    const db = createDb(path.join(dir, 'db.sqlite'));
    try {
      await db.migrate.latest();
      const definition = async (name: string) => ((await db('sqlite_master').where({ type: 'index', name }).first('sql')) as { sql: string }).sql;
      assert.match(await definition('guests_event_nfc_tag_unique'), /^CREATE UNIQUE INDEX .* where `nfc_tag` is not null$/);
      assert.match(await definition('guests_event_inactive_index'), / where objstatus = 2$/);
      // The door's stats, as they run: the inactive count is a search of the inactive guests alone.
      const statements: { sql: string; bindings: readonly (string | number)[] }[] = [];
      db.on('query', (q: { sql: string; bindings: readonly (string | number)[] }) => statements.push(q));
      await eventStats(db, 1);
      const inactive = statements.find((q) => q.sql.includes('objstatus'));
      assert.ok(inactive, 'the stats count inactive guests');
      const plan = ((await db.raw(`EXPLAIN QUERY PLAN ${inactive.sql}`, inactive.bindings)) as { detail: string }[]).map((r) => r.detail).join('\n');
      assert.match(plan, /USING COVERING INDEX guests_event_inactive_index/);
    } finally {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stores scan times a SQLite laptop kept in the API form as instants, as PostgreSQL does', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-scan-times-'));
    const db = createDb(path.join(dir, 'db.sqlite'));
    try {
      const migration = { name: '20261126100000_scan_times_as_instants' };
      await db.migrate.latest();
      await db.migrate.down(migration);
      const [group] = await db('groups').insert(rec({ name: 'Acme' })).returning('id');
      const [event] = await db('events').insert(rec({ group_id: group.id, name: 'Night', starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00', timezone: 'UTC' })).returning('id');
      const [type] = await db('registration_types').insert(rec({ event_id: event.id, name: 'Ticket', description: '' })).returning('id');
      const guest = (barcode: string, checkedInAt: string | null) => rec({ event_id: event.id, registration_type_id: type.id, first_name: 'A', last_name: 'B', email: 'a@b.test', barcode, checked_in_at: checkedInAt });
      const [inside, outside] = await db('guests').insert([guest('BC-1', '2026-12-01T18:02:07'), guest('BC-2', null)]).returning('id');
      await db('checkins').insert([
        rec({ event_id: event.id, guest_id: inside.id, direction: 'in', scanned_at: '2026-12-01T18:02:07' }),
        rec({ event_id: event.id, guest_id: outside.id, direction: 'in', scanned_at: '2026-12-01 18:01:00' }),
        rec({ event_id: event.id, guest_id: outside.id, direction: 'out', scanned_at: '2026-12-01T18:05:00.250Z' }),
      ]);

      await db.migrate.latest();
      assert.deepEqual(await db('checkins').orderBy('id').pluck('scanned_at'), ['2026-12-01T18:02:07.000Z', '2026-12-01T18:01:00.000Z', '2026-12-01T18:05:00.250Z']);
      assert.deepEqual(await db('guests').orderBy('id').pluck('checked_in_at'), ['2026-12-01T18:02:07.000Z', null]);
      await db.migrate.down(migration);
      assert.deepEqual(await db('checkins').orderBy('id').pluck('scanned_at'), ['2026-12-01T18:02:07', '2026-12-01T18:01:00', '2026-12-01T18:05:00']);
    } finally {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('moves the search terms a SQLite laptop kept into the full-text index, and works them out again going back', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-search-terms-'));
    const db = createDb(path.join(dir, 'db.sqlite'));
    try {
      const migration = { name: '20261126140000_guest_search_full_text' };
      await db.migrate.latest();
      await db.migrate.down(migration);
      const [group] = await db('groups').insert(rec({ name: 'Acme' })).returning('id');
      const [event] = await db('events').insert(rec({ group_id: group.id, name: 'Night', starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00', timezone: 'UTC' })).returning('id');
      const [type] = await db('registration_types').insert(rec({ event_id: event.id, name: 'Ticket', description: '' })).returning('id');
      const [ada] = await db('guests').insert(rec({ event_id: event.id, registration_type_id: type.id, first_name: 'Åda', last_name: 'Lovelace', email: 'ada@engine.test', barcode: 'BC-1' })).returning('id');
      // As the old code filed them: a row per term.
      await db('guest_search_terms').insert(['åda', 'lovelace', 'ada@engine.test', 'engine', 'test', 'bc-1'].map((term) => ({ event_id: event.id, guest_id: ada.id, term })));

      await db.migrate.latest();
      const found = async (search: string) => (await listGuests(db, event.id, { search }, { limit: 10, offset: 0 })).count;
      for (const search of ['åd', 'love', 'ada@eng', 'engine', 'bc-1', 'lovelace åda']) assert.equal(await found(search), 1, search);
      assert.equal(await found('grace'), 0);

      await db.migrate.down(migration);
      // Worked out again by today's rule, folded (migration 20261128000000): Åda is ada, a prefix of the e-mail.
      const terms = (await db('guest_search_terms').where({ guest_id: ada.id }).pluck('term')).sort();
      assert.deepEqual(terms, ['ada@engine.test', 'bc-1', 'engine', 'lovelace', 'test']);
    } finally {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('files again, folded, the search terms of guests with accents, and lower-cased only going back', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-search-folded-'));
    const database = await createTestDatabase(dir);
    const db = createDb(database.setting);
    try {
      const migration = { name: '20261128000000_guest_search_folded' };
      await migrateLatest(db);
      const [group] = await db('groups').insert(rec({ name: 'Acme' })).returning('id');
      const [event] = await db('events').insert(rec({ group_id: group.id, name: 'Night', starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00', timezone: 'UTC' })).returning('id');
      const [type] = await db('registration_types').insert(rec({ event_id: event.id, name: 'Ticket', description: '' })).returning('id');
      await db.transaction((trx) =>
        insertGuests(trx, event.id, [
          { registration_type_id: type.id, first_name: 'Zoë', last_name: 'Müller', email: '' },
          { registration_type_id: type.id, first_name: 'Ada', last_name: 'Lovelace', email: '' },
        ]),
      );
      const found = async (search: string) => (await listGuests(db, event.id, { search }, { limit: 10, offset: 0 })).count;
      await db.migrate.down(migration);
      // As the code before it: lower-cased, accents kept.
      assert.equal(await found('muller'), 0);
      assert.equal(await found('ada'), 1);
      await db.migrate.latest();
      for (const search of ['muller', 'MÜLLER', 'zoe müll', 'ada']) assert.equal(await found(search), 1, search);
    } finally {
      await db.destroy();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('files again the search terms of guests with letters of their own, spelled plainly, and as before going back', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-search-own-letters-'));
    const database = await createTestDatabase(dir);
    const db = createDb(database.setting);
    try {
      const migration = { name: '20261201000000_guest_search_own_letters' };
      await migrateLatest(db);
      const [group] = await db('groups').insert(rec({ name: 'Acme' })).returning('id');
      const [event] = await db('events').insert(rec({ group_id: group.id, name: 'Night', starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00', timezone: 'UTC' })).returning('id');
      const [type] = await db('registration_types').insert(rec({ event_id: event.id, name: 'Ticket', description: '' })).returning('id');
      await db.transaction((trx) =>
        insertGuests(trx, event.id, [
          { registration_type_id: type.id, first_name: 'Søren', last_name: 'Ødegård', email: '' },
          { registration_type_id: type.id, first_name: 'Łukasz', last_name: 'García', email: '', company: 'Straße AG' },
          { registration_type_id: type.id, first_name: 'Zoë', last_name: 'Müller', email: '' },
        ]),
      );
      const found = async (search: string) => (await listGuests(db, event.id, { search }, { limit: 10, offset: 0 })).count;
      await db.migrate.down(migration);
      // As the code before it: marks removed, letters of their own kept (so today's words, spelled plainly, miss them).
      for (const search of ['soren', 'odegard', 'lukasz', 'strasse']) assert.equal(await found(search), 0, search);
      for (const search of ['muller', 'garcia']) assert.equal(await found(search), 1, search);
      await db.migrate.latest();
      for (const search of ['soren', 'SØREN', 'odegard', 'lukasz garcia', 'strasse', 'muller']) assert.equal(await found(search), 1, search);
    } finally {
      await db.destroy();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('run latest, rollback and latest again on PostgreSQL, two processes at once taking turns', { skip: TEST_PG ? false : 'DOORLIST_TEST_PG is not set' }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-migrate-pg-'));
    const database = await createTestDatabase(dir);
    const [db, other] = [createDb(database.setting), createDb(database.setting)];
    try {
      await Promise.all([migrateLatest(db), migrateLatest(other)]);
      const tables = async () =>
        (await db('information_schema.tables').where({ table_schema: 'public' }).pluck('table_name')).filter((n: string) => !n.startsWith('knex_')).sort();
      const created = await tables();
      assert.ok(created.includes('guests') && created.includes('login_attempts'), created.join(' '));
      const collation = await db('information_schema.columns').where({ table_name: 'guest_search_terms', column_name: 'term' }).first('collation_name');
      assert.equal(collation.collation_name, 'C');
      // Rows that refer to a removed row (ON DELETE CASCADE / SET NULL) are found by an index led by their foreign-key column.
      const { rows: keys } = await db.raw(
        "select c.conrelid::regclass::text as child, a.attname as col from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1] where c.contype = 'f'",
      );
      const { rows: leads } = await db.raw('select i.indrelid::regclass::text as child, a.attname as col from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]');
      for (const expected of ['checkins.guest_id', 'checkins.session_id', 'scan_replies.event_id']) assert.ok(keys.some((k: { child: string; col: string }) => `${k.child}.${k.col}` === expected), expected);
      for (const key of keys as { child: string; col: string }[]) {
        assert.ok(leads.some((l: { child: string; col: string }) => l.child === key.child && l.col === key.col), `${key.child}.${key.col} leads no index`);
      }
      await db.migrate.rollback(undefined, true);
      assert.deepEqual(await tables(), []);
      await db.migrate.latest();
      assert.deepEqual(await tables(), created);
    } finally {
      await Promise.all([db.destroy(), other.destroy()]);
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
