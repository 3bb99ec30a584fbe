import { setTimeout } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestServer } from '../helpers/server';
import { createEvent, createGroup } from '../helpers/fixtures';
import { download, importFile, readFile, seedFullEvent } from '../helpers/event-files';
import { discardHiddenEvent, insertHiddenEvent, keepImportAlive } from '../../db/repositories/event-file-merge';
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

  it('is in no list and answers 404; an import of it waits while its import is alive, 409 after 30 s, and follows it once it ends', async () => {
    const hidden = await insertHiddenEvent(laptop.db, { ...(eventRecord as Omit<EventRow, 'id' | 'group_id'>), group_id: groupId });
    const alive = keepImportAlive(laptop.db, hidden);
    try {
      assert.equal((await laptop.get('/events')).body.count, 0);
      assert.deepEqual((await laptop.get(`/events/${hidden}`)).body, { detail: MSG.eventNotFound });
      assert.equal((await laptop.get(`/events/${hidden}/guests`)).status, 404);
      const started = Date.now();
      const first = importFile(laptop, file, `?group_id=${groupId}`);
      // The second comes 20 s later, so it is still waiting when the first gives up: past
      // ABANDONED_MS (10 s), only the heartbeat tells these imports the hidden one is alive.
      await setTimeout(20_000);
      const second = importFile(laptop, file, `?group_id=${groupId}`);
      const refused = await first;
      assert.equal(refused.status, 409);
      assert.deepEqual(refused.body, { detail: MSG.eventFileImportRunning });
      assert.ok(Date.now() - started >= 30_000, `answered after ${Date.now() - started} ms`);
      // The import under way is refused in turn: the waiting one makes the event itself.
      await alive.stop();
      await discardHiddenEvent(laptop.db, hidden);
      const res = await second;
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.event_created, true);
      assert.equal((await laptop.get('/events')).body.count, 1);
    } finally {
      await alive.stop();
    }
  });

  it('answers 201 at once when the import of it stopped stamping it (a crash): it is cleared and the event made anew', async () => {
    const eventId = await createEvent(origin, await createGroup(origin, { name: 'Crash group' }), { name: 'Crashed night' });
    await seedFullEvent(origin, eventId, 'Crash');
    const crashed = await download(origin, eventId);
    const record = readFile(crashed).records[0].record as Omit<EventRow, 'id' | 'group_id'>;
    await insertHiddenEvent(laptop.db, { ...record, group_id: groupId });
    // Last stamped just over ABANDONED_MS (10 s) ago: its import is taken for dead.
    await laptop.db('events').where({ uid: record.uid }).update({ importing_since: new Date(Date.now() - 11_000).toISOString() });
    const started = Date.now();
    const res = await importFile(laptop, crashed, `?group_id=${groupId}`);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.ok(Date.now() - started < 5000, `answered after ${Date.now() - started} ms`);
    assert.equal(res.body.created.guests, 1);
    assert.equal((await laptop.get('/events')).body.count, 2);
    assert.equal((await laptop.db('events').where({ uid: record.uid }).first()).importing_since, null);
  });
});
