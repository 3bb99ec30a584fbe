import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestServer } from '../helpers/server';
import { createEvent, createGroup } from '../helpers/fixtures';
import { download, importFile, readFile, seedFullEvent } from '../helpers/event-files';
import { insertHiddenEvent } from '../../db/repositories/event-file-merge';
import { MSG } from '../../core/messages';
import type { EventRow } from '../../db/repositories/events';

/** A new event's rows are written under an event no one sees until the import reveals it. */
describe('POST /events/import: an event still being imported', () => {
  let origin: TestServer;
  let laptop: TestServer;
  let file: Buffer;
  let eventRecord: Record<string, any>;
  let groupId: number;

  before(async () => {
    [origin, laptop] = await Promise.all([TestServer.start(), TestServer.start()]);
    const eventId = await createEvent(origin, await createGroup(origin), { name: 'Staged night' });
    await seedFullEvent(origin, eventId, 'Stage');
    file = await download(origin, eventId);
    eventRecord = readFile(file).records[0].record;
    groupId = await createGroup(laptop, { name: 'Laptop group' });
  });
  after(async () => {
    await Promise.all([origin.stop(), laptop.stop()]);
  });

  it('is in no list and answers 404, and a second import of it answers 409', async () => {
    const hidden = await insertHiddenEvent(laptop.db, { ...(eventRecord as Omit<EventRow, 'id' | 'group_id'>), group_id: groupId });
    assert.equal((await laptop.get('/events')).body.count, 0);
    assert.deepEqual((await laptop.get(`/events/${hidden}`)).body, { detail: MSG.eventNotFound });
    assert.equal((await laptop.get(`/events/${hidden}/guests`)).status, 404);
    const res = await importFile(laptop, file, `?group_id=${groupId}`);
    assert.equal(res.status, 409);
    assert.deepEqual(res.body, { detail: MSG.eventFileImportRunning });
  });

  it('answers 201 once the import left by a crash is over an hour old: it is cleared and the event made anew', async () => {
    await laptop.db('events').where({ uid: eventRecord.uid }).update({ importing_since: new Date(Date.now() - 2 * 3600_000).toISOString() });
    const res = await importFile(laptop, file, `?group_id=${groupId}`);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.created.guests, 1);
    assert.equal((await laptop.get('/events')).body.count, 1);
    assert.equal((await laptop.db('events').where({ uid: eventRecord.uid }).first()).importing_since, null);
  });
});
