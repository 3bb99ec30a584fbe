import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TestServer } from '../helpers/server';
import { createApiKey, createEvent, createGroup } from '../helpers/fixtures';
import { download, importFile, readFile, rec, seedFullEvent, stamp, writeFile } from '../helpers/event-files';
import { MSG } from '../../core/messages';
import { createDb } from '../../db/knex';
import { importEventFile } from '../../server/event-file';

describe('GET /events/:event_id/export?since=T (a delta)', () => {
  let laptop1: TestServer;
  let laptop2: TestServer;
  let eventId: number;
  let since: string;
  let delta: ReturnType<typeof readFile>;

  before(async () => {
    [laptop1, laptop2] = await Promise.all([TestServer.start(), TestServer.start()]);
    eventId = await createEvent(laptop1, await createGroup(laptop1), { name: 'Delta night' });
    await seedFullEvent(laptop1, eventId, 'Base');
    assert.equal((await importFile(laptop2, await download(laptop1, eventId))).status, 201);
    since = new Date(Date.now() - 1000).toISOString().slice(0, 19);
    // After T: a new guest with a check-in, an undo of the base check-in, a renamed session
    // (whose tag, older than T, travels with it).
    const db = laptop1.db;
    const type = await db('registration_types').where({ event_id: eventId }).first();
    const [late] = await db('guests').insert(rec({ event_id: eventId, registration_type_id: type.id, first_name: 'Late', last_name: 'Comer', email: 'l@x.test', barcode: 'LATE-1' }, 0)).returning('id');
    await db('checkins').insert(rec({ event_id: eventId, guest_id: late.id, direction: 'in', scanned_at: stamp(), station: 'North' }, 0));
    await db('guests').where({ id: late.id }).update({ checked_in_at: stamp() });
    await db('checkins').where({ station: 'Base door' }).update({ undone_at: stamp(), modified: stamp() });
    await db('sessions').where({ event_id: eventId }).update({ name: 'Renamed keynote', modified: stamp() });
    delta = readFile(await download(laptop1, eventId, undefined, `?since=${since}`));
  });
  after(async () => {
    await Promise.all([laptop1.stop(), laptop2.stop()]);
  });

  it('answers 200 with only what changed at or after T: records and check-ins by modified, undos included, a parent with its set', async () => {
    assert.equal(delta.header.since, new Date(`${since}Z`).toISOString());
    assert.deepEqual(
      delta.records.map((l) => [l.table, l.record.name ?? l.record.first_name ?? l.record.tag ?? l.record.station]),
      [
        ['events', 'Delta night'],
        ['sessions', 'Renamed keynote'],
        ['session_tags', 'plenary'],
        ['guests', 'Late'],
        ['checkins', 'Base door'],
        ['checkins', 'North'],
      ],
    );
    assert.equal(delta.header.counts.checkins, 2);
    assert.equal(delta.header.counts.guests, 1);
    assert.equal(delta.header.group.name, 'Acme Events');
  });

  it('imports like any file: the other laptop merges the delta, its parents found by uid in the event', async () => {
    const res = await importFile(laptop2, await download(laptop1, eventId, undefined, `?since=${since}`));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.created.guests, 1);
    assert.equal(res.body.checkins_added, 1);
    assert.equal(res.body.updated.checkins, 1);
    assert.equal(res.body.updated.sessions, 1);
    assert.deepEqual(res.body.deleted, Object.fromEntries(Object.keys(res.body.deleted).map((t) => [t, 0])));
    assert.deepEqual(res.body.conflicts, []);
    const guests = await laptop2.get(`/events/${res.body.event_id}/guests?only_checkins=true`);
    assert.deepEqual(guests.body.results.map((g: { barcode: string }) => g.barcode), ['LATE-1']);
    assert.equal((await laptop2.db('session_tags').count({ n: '*' }))[0].n, 1);
  });

  it('merges the same with its checks read on another connection of the database', async () => {
    const reader = createDb(laptop2.config.db);
    try {
      const file = path.join(laptop2.dir, 'delta.doorlist.gz');
      fs.writeFileSync(file, await download(laptop1, eventId, undefined, `?since=${since}`));
      const again = await importEventFile(laptop2.db, file, { scope: null, reader });
      assert.equal(again.event_created, false);
      assert.equal(again.checkins_added, 0);
      assert.equal(again.unchanged.guests, 1);
      assert.equal(again.unchanged.checkins, 2);
      assert.deepEqual(again.conflicts, []);
    } finally {
      await reader.destroy();
    }
  });

  it('answers 400 for a since that is not a time', async () => {
    const res = await laptop1.get(`/events/${eventId}/export?since=yesterday`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { since: [MSG.invalidTimestamp] });
  });
});

describe('POST /events/import: the group of a new event', () => {
  let origin: TestServer;
  let fresh: TestServer;
  let file: Buffer;
  let originGroup: Record<string, unknown>;

  before(async () => {
    [origin, fresh] = await Promise.all([TestServer.start(), TestServer.start()]);
    const groupId = await createGroup(origin, { name: 'Festival Crew', email: 'crew@fest.test', phone: '+31 20 555 0100', website: 'https://fest.test', type: 'Venue' });
    originGroup = await origin.db('groups').where({ id: groupId }).first();
    const eventId = await createEvent(origin, groupId, { name: 'Festival' });
    await seedFullEvent(origin, eventId, 'Fest');
    file = await download(origin, eventId);
  });
  after(async () => {
    await Promise.all([origin.stop(), fresh.stop()]);
  });

  it('answers 400 and makes no group when a new event with the file\'s group fails later in the file', async () => {
    const { header, records } = readFile(file);
    const broken = records.map((l) => (l.table === 'checkins' ? { ...l, record: { ...l.record, direction: 'sideways' } } : l));
    const res = await importFile(fresh, writeFile(header, broken));
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { detail: MSG.eventFileInvalid(`a checkins record is invalid (direction: ${MSG.invalidDirection})`) });
    assert.equal((await fresh.get('/groups')).body.count, 0);
    assert.equal(Number((await fresh.db('events').count({ n: '*' }))[0].n), 0);
    assert.equal(Number((await fresh.db('guests').count({ n: '*' }))[0].n), 0);
  });

  it('answers 201 for an administrator on an empty laptop: the event goes into the file\'s group, made with its uid and contact fields', async () => {
    const res = await importFile(fresh, file);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.group_created, true);
    const group = await fresh.db('groups').where({ id: res.body.group_id }).first();
    const fields = ['uid', 'name', 'email', 'phone', 'website', 'type'];
    assert.deepEqual(Object.fromEntries(fields.map((f) => [f, group[f]])), Object.fromEntries(fields.map((f) => [f, originGroup[f]])));
    assert.equal(group.parent_id, null);
    assert.equal((await fresh.get(`/events/${res.body.event_id}`)).body.group_id, group.id);
  });

  it('answers 201 into the group with that uid when this laptop has it, making none', async () => {
    const { header, records } = readFile(file);
    const other = records.map((l) => (l.table === 'events' ? { ...l, record: { ...l.record, uid: '11111111-1111-4111-8111-111111111111' } } : l)).filter((l) => l.table === 'events');
    const res = await importFile(fresh, writeFile(header, other));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.group_created, false);
    assert.equal(res.body.group_id, (await fresh.db('groups').where({ uid: originGroup.uid }).first()).id);
    assert.equal((await fresh.get('/groups')).body.count, 1);
  });

  it('answers 201 into a key\'s own group, and into group_id when given', async () => {
    const { header, records } = readFile(file);
    const only = (uid: string) => writeFile(header, records.map((l) => (l.table === 'events' ? { ...l, record: { ...l.record, uid } } : l)).filter((l) => l.table === 'events'));
    const own = await createGroup(fresh, { name: 'Door team' });
    const byKey = await importFile(fresh, only('22222222-2222-4222-8222-222222222222'), '', { token: await createApiKey(fresh, own) });
    assert.equal(byKey.status, 201, JSON.stringify(byKey.body));
    assert.equal(byKey.body.group_id, own);
    assert.equal(byKey.body.group_created, false);
    const chosen = await createGroup(fresh, { name: 'Chosen' });
    const explicit = await importFile(fresh, only('33333333-3333-4333-8333-333333333333'), `?group_id=${chosen}`);
    assert.equal(explicit.status, 201, JSON.stringify(explicit.body));
    assert.equal(explicit.body.group_id, chosen);
  });
});
