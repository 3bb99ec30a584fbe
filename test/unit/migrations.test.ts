import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createDb } from '../../db/knex';

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
});
