import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { createDb } from '../../db/knex';
import { insertRows } from '../../db/bulk';
import { rec } from '../helpers/event-files';

/** SQLite keeps each event's number of guests by triggers (migration 20261126110000): it must match a count whatever writes. */
describe('kept guest counts (SQLite)', () => {
  let dir: string;
  let db: Knex;
  let groupId: number;
  let typeId: number;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-guest-counts-'));
    db = createDb(path.join(dir, 'db.sqlite'));
    await db.migrate.latest();
    [{ id: groupId }] = await db('groups').insert(rec({ name: 'Acme' })).returning('id');
  });
  after(async () => {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const newEvent = async (name: string): Promise<number> => {
    const [{ id }] = await db('events').insert(rec({ group_id: groupId, name, starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00', timezone: 'UTC' })).returning('id');
    [{ id: typeId }] = await db('registration_types').insert(rec({ event_id: id, name: 'Ticket', description: '' })).returning('id');
    return id;
  };
  const guest = (eventId: number, barcode: string) => rec({ event_id: eventId, registration_type_id: typeId, first_name: 'A', last_name: 'B', email: 'a@b.test', barcode });
  const kept = async (eventId: number) => (await db('event_guest_counts').where({ event_id: eventId }).first('guests'))?.guests;
  const counted = async (eventId: number) => Number((await db('guests').where({ event_id: eventId }).count({ n: '*' }))[0].n);

  it('follows guests added one by one and in bulk, moved between events and removed', async () => {
    const event = await newEvent('Night');
    const staging = await newEvent('Staging');
    assert.equal(await kept(event), 0);
    await db('guests').insert(guest(event, 'ONE'));
    await insertRows(db, 'guests', Array.from({ length: 1200 }, (_, i) => guest(staging, `BULK-${i}`)), false);
    assert.deepEqual([await kept(event), await kept(staging)], [1, 1200]);
    await db('guests').where({ event_id: staging }).update({ event_id: event });
    await db('guests').where({ event_id: event }).update({ first_name: 'Renamed' });
    assert.deepEqual([await kept(event), await kept(staging)], [1201, 0]);
    await db('guests').where({ barcode: 'ONE' }).delete();
    assert.equal(await kept(event), await counted(event));
    assert.equal(await kept(event), 1200);
    await db('events').where({ id: event }).delete();
    assert.equal(await kept(event), undefined);
  });

  it('starts from the guests already there when the migration runs', async () => {
    const event = await newEvent('Before');
    await insertRows(db, 'guests', Array.from({ length: 7 }, (_, i) => guest(event, `OLD-${i}`)), false);
    await db.migrate.down({ name: '20261126110000_event_guest_counts' });
    assert.equal(await db.schema.hasTable('event_guest_counts'), false);
    await db.migrate.latest();
    assert.equal(await kept(event), 7);
  });
});
