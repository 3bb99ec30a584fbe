import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { TestServer } from '../helpers/server';
import { createEvent, createGroup } from '../helpers/fixtures';
import { download, rec } from '../helpers/event-files';
import { scan, seedGuests, seedRegistrationType } from '../helpers/checkins';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { createDb, migrateLatest } from '../../db/knex';
import { guestsWithSearchTerms } from '../../db/search-index';
import { importEventFile } from '../../server/event-file';

const GUESTS = 700;

/** A new event's rows go in short transactions while a door is at work, in whole batches while none is: the same event either way. */
describe('importing a new event with no door at work', () => {
  let origin: TestServer;
  let dir: string;
  let file: string;
  const databases: TestDatabase[] = [];
  const dbs: Knex[] = [];

  before(async () => {
    origin = await TestServer.start();
    const eventId = await createEvent(origin, await createGroup(origin), { name: 'Quiet import' });
    const typeId = await seedRegistrationType(origin, eventId);
    await seedGuests(origin, eventId, typeId, Array.from({ length: GUESTS }, (_, i) => ({ barcode: `Q-${i}`, last_name: `Guest ${i}` })));
    for (let i = 0; i < 5; i++) assert.equal((await scan(origin, eventId, { barcode: `Q-${i}`, station: 'Door 1' })).status, 201);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-quiet-import-'));
    file = path.join(dir, 'event.doorlist.gz');
    fs.writeFileSync(file, await download(origin, eventId));
  });
  after(async () => {
    await origin.stop();
    await Promise.all(dbs.map((db) => db.destroy()));
    await Promise.all(databases.map((d) => d.drop()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Imports the file into a fresh database; how many statements inserted guests, and what the event holds. */
  async function importInto(name: string, doorActive?: () => boolean) {
    fs.mkdirSync(path.join(dir, name));
    const database = await createTestDatabase(path.join(dir, name));
    databases.push(database);
    const db = createDb(database.setting);
    dbs.push(db);
    await migrateLatest(db);
    const [group] = await db('groups').insert(rec({ name: 'Laptop' })).returning('id');
    let guestInserts = 0;
    db.on('query', (q: { sql: string }) => {
      if (/^insert into [`"]guests[`"]/i.test(q.sql)) guestInserts++;
    });
    const result = await importEventFile(db, file, { scope: null, groupId: group.id, ...(doorActive ? { doorActive } : {}) });
    assert.equal(result.event_created, true);
    const guests = await db('guests').where({ event_id: result.event_id }).orderBy('uid').select('uid', 'barcode', 'last_name', 'checked_in_at');
    const checkins = await db('checkins').where({ event_id: result.event_id }).orderBy('uid').select('uid', 'scanned_at', 'station');
    const terms = await guestsWithSearchTerms(db, result.event_id);
    return { guestInserts, guests, checkins, terms };
  }

  it('writes a batch in one statement instead of 250-row ones, and holds the same guests, scans and search terms', async () => {
    const busy = await importInto('busy');
    const quiet = await importInto('quiet', () => false);
    assert.equal(busy.guestInserts, Math.ceil(GUESTS / 250));
    assert.equal(quiet.guestInserts, 1);
    assert.equal(quiet.guests.length, GUESTS);
    assert.deepEqual(quiet.guests, busy.guests);
    assert.deepEqual(quiet.checkins, busy.checkins);
    assert.equal(quiet.checkins.length, 5);
    assert.equal(quiet.terms, busy.terms);
  });
});
