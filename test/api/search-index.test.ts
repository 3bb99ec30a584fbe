import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDb, migrateLatest, type Db } from '../../db/knex';
import { findGuest, listGuests, type GuestInsert } from '../../db/repositories/guests';
import { GuestBatch, insertGuests, insertPreparedGuests } from '../../db/repositories/guest-inserts';
import { updateGuest } from '../../db/repositories/guest-updates';
import { fullTextTokens, guestsWithSearchTerms, refreshSearchStatistics } from '../../db/search-index';
import { createTestDatabase, TEST_PG, type TestDatabase } from '../helpers/database';
import { rec } from '../helpers/event-files';

/** Guests' search terms, filed per event (db/search-index.ts): FTS5 on SQLite, term rows on PostgreSQL. */
describe(`the search index (${TEST_PG ? 'PostgreSQL' : 'SQLite'})`, () => {
  let dir: string;
  let database: TestDatabase;
  let db: Db;
  let groupId: number;
  // Event ids 1 and 11: one's id is the other's first digit, as its token's prefix would be.
  const events: { id: number; typeId: number }[] = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-search-'));
    database = await createTestDatabase(dir);
    db = createDb(database.setting);
    await migrateLatest(db);
    [{ id: groupId }] = await db('groups').insert(rec({ name: 'Acme' })).returning('id');
    for (let i = 0; i < 11; i++) {
      const [{ id }] = await db('events').insert(rec({ group_id: groupId, name: `Night ${i}`, starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00', timezone: 'UTC' })).returning('id');
      const [{ id: typeId }] = await db('registration_types').insert(rec({ event_id: id, name: 'Ticket', description: '' })).returning('id');
      events.push({ id, typeId });
    }
  });
  after(async () => {
    await db?.destroy();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const guest = (typeId: number, first: string, last: string, extra: Partial<GuestInsert> = {}): GuestInsert => ({ registration_type_id: typeId, first_name: first, last_name: last, email: '', ...extra });
  const add = (event: { id: number; typeId: number }, guests: GuestInsert[]) => db.transaction((trx) => insertGuests(trx, event.id, guests));
  const found = async (eventId: number, search: string) => (JSON.parse(`[${(await listGuests(db, eventId, { search }, { limit: 10_000, offset: 0 })).guests}]`) as { id: number }[]).map((g) => g.id);

  it('finds a guest by any word prefix of its fields, within its own event only', async () => {
    const [first, eleventh] = [events[0], events[10]];
    const [ada] = await add(first, [guest(first.typeId, 'Ada', 'Lovelace', { email: 'ada@engine.example', company: 'Analytical Engine', barcode: 'BC-ADA' })]);
    const [other] = await add(eleventh, [guest(eleventh.typeId, 'Ada', 'Byron', { email: 'ada@poetry.example' })]);
    assert.deepEqual(await found(first.id, 'ada'), [ada]);
    assert.deepEqual(await found(eleventh.id, 'ada'), [other]);
    assert.deepEqual(await found(first.id, 'LOVE ana'), [ada]);
    assert.deepEqual(await found(first.id, 'ada@engine'), [ada]);
    assert.deepEqual(await found(first.id, 'example'), [ada]);
    assert.deepEqual(await found(first.id, 'bc-ada'), [ada]);
    assert.deepEqual(await found(first.id, 'byron'), []);
    assert.deepEqual(await found(first.id, 'ada nobody'), []);
    assert.equal(await guestsWithSearchTerms(db, first.id), 1);
    assert.equal(await guestsWithSearchTerms(db, eleventh.id), 1);
  });

  it('folds letters beyond ASCII (accents off, the rest whole) and takes search syntax as plain text', async () => {
    const event = events[1];
    const [zoe] = await add(event, [guest(event.typeId, 'Zoë', 'Ångström', { company: 'Café "Noir" * AND OR', barcode: 'ÆØÅ-1' })]);
    for (const q of ['zoë', 'zo', 'zoe', 'ångs', 'angstrom', 'café', 'cafe', '"noir"', '*', 'and', 'or', 'æøå-1', 'æøa-1']) assert.deepEqual(await found(event.id, q), [zoe], q);
    for (const q of ['aoa-1', 'NEAR(zo', ')', '-zo', 'zo*', 'ada']) assert.deepEqual(await found(event.id, q), [], q);
  });

  it('spells a batch\'s tokens as each term alone would be, in one go or term by term', () => {
    const alone = (eventId: number, terms: string[][]) => terms.map((own) => own.map((t) => `${eventId}x${Buffer.from(t, 'utf8').toString('hex')}`).join(' '));
    const ascii = [['ada', 'lovelace'], [], ['x'.repeat(255), 'bc-1']];
    assert.deepEqual(fullTextTokens(7, ascii), alone(7, ascii));
    // Beyond ASCII, and lone surrogates whose neighbours would pair up if the batch were encoded joined.
    const mixed = [['ada'], ['zoë', 'ångström'], ['a\ud800'], ['\udc00b', 'bc-2']];
    assert.deepEqual(fullTextTokens(12, mixed), alone(12, mixed));
  });

  it('finds every guest of a batch that mixes ASCII and other letters', async () => {
    const event = events[6];
    const ids = await add(event, [guest(event.typeId, 'Grace', 'Hopper'), guest(event.typeId, 'Zoë', 'Ångström'), guest(event.typeId, 'Linus', 'Torvalds')]);
    for (const [q, id] of [['grace', ids[0]], ['ångs', ids[1]], ['torv', ids[2]]] as const) assert.deepEqual(await found(event.id, q), [id], q);
  });

  it('files a barcode drawn again after a clash under the code the guest got', async () => {
    const event = events[7];
    const [holder] = await add(event, [guest(event.typeId, 'Holder', 'One', { barcode: 'TAKENCODE001' })]);
    const batch = new GuestBatch(event.id);
    batch.add(guest(event.typeId, 'Walk', 'In'));
    // As if the code generated for the walk-in were the holder's: the insert meets it and draws again.
    batch.records[0].barcode = 'TAKENCODE001';
    const [walkIn] = await db.transaction((trx) => insertPreparedGuests(trx, batch.prepared(trx)));
    const { barcode } = (await findGuest(db, event.id, walkIn))!;
    assert.notEqual(barcode, 'TAKENCODE001');
    assert.deepEqual(await found(event.id, barcode.toLowerCase()), [walkIn]);
    assert.deepEqual(await found(event.id, 'takencode'), [holder]);
  });

  it('follows a change of the searched fields', async () => {
    const event = events[2];
    const [id] = await add(event, [guest(event.typeId, 'Grace', 'Kelly', { company: 'Hollywood' })]);
    await updateGuest(db, (await findGuest(db, event.id, id))!, { last_name: 'Grimaldi', company: 'Monaco Palace' });
    assert.deepEqual(await found(event.id, 'kelly'), []);
    assert.deepEqual(await found(event.id, 'hollywood'), []);
    assert.deepEqual(await found(event.id, 'grimaldi palace'), [id]);
    assert.equal(await guestsWithSearchTerms(db, event.id), 1);
  });

  it('forgets guests removed, one by one or with their event', async () => {
    const event = events[3];
    const ids = await add(event, Array.from({ length: 30 }, (_, i) => guest(event.typeId, `Gone${i}`, 'Soon')));
    await db('guests').where({ id: ids[0] }).delete();
    assert.equal(await guestsWithSearchTerms(db, event.id), 29);
    assert.deepEqual((await found(event.id, 'gone0')).length, 0);
    await db('events').where({ id: event.id }).delete();
    assert.equal(await guestsWithSearchTerms(db, event.id), 0);
  });

  it('has PostgreSQL refresh its statistics only after an import of many guests', { skip: TEST_PG ? false : 'PostgreSQL only' }, async () => {
    const event = events[5];
    await add(event, Array.from({ length: 50 }, (_, i) => guest(event.typeId, `Few${i}`, 'Guests')));
    // ANALYZE writes the table's row count to pg_class at once (autovacuum waits a minute).
    const estimated = async () => Number((await db.raw("select reltuples from pg_class where relname = 'guests'")).rows[0].reltuples);
    const before = await estimated();
    await refreshSearchStatistics(db, 999);
    assert.equal(await estimated(), before);
    await refreshSearchStatistics(db, 1000);
    assert.equal(await estimated(), Number((await db('guests').count({ n: '*' }))[0].n));
  });

  it('answers two words that each match thousands of guests', async () => {
    const event = events[4];
    const ids = await add(event, Array.from({ length: 5000 }, (_, i) => guest(event.typeId, `Bench${i}`, 'Guest', { company: 'Common Company' })));
    await refreshSearchStatistics(db, ids.length); // as an import does once its guests are in
    // Both databases once joined the two words' lists pair by pair (SQLite always, PostgreSQL
    // before its statistics were refreshed): 25 million comparisons here. How long it takes is
    // a figure of `npm run bench` (section search); here, what it finds.
    assert.equal((await listGuests(db, event.id, { search: 'guest common' }, { limit: 25, offset: 0 })).count, 5000);
    assert.equal((await listGuests(db, event.id, { search: 'company bench1' }, { limit: 25, offset: 0 })).count, 1111);
    assert.deepEqual(await found(event.id, 'bench4999 guest'), [ids[4999]]);
  });
});
