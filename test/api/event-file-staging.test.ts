import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestServer } from '../helpers/server';
import { createEvent, createGroup } from '../helpers/fixtures';
import { download, importFile, readFile, seedFullEvent } from '../helpers/event-files';
import { discardHiddenEvent, importLiveness, insertHiddenEvent, keepImportAlive } from '../../db/repositories/event-file-merge';
import { MSG } from '../../core/messages';
import type { EventRow } from '../../db/repositories/events';

// The laptop takes an import silent this long for dead (importAbandonedMs; 10 s when shipped),
// and its imports stamp every fifth of it.
const ABANDONED_MS = 2000;
const HEARTBEAT_MS = ABANDONED_MS / 5;
// The laptop's imports wait this long for another import of the same event (30 s when shipped):
// past the first heartbeat and a second past the moment an unstamped import would look dead.
const IMPORT_WAIT_MS = ABANDONED_MS + 1000;

/** A new event's rows are written under an event no one sees until the import reveals it. */
describe('POST /events/import: an event still being imported', () => {
  let origin: TestServer;
  let laptop: TestServer;
  let file: Buffer;
  let eventRecord: Record<string, any>;
  let groupId: number;

  before(async () => {
    [origin, laptop] = await Promise.all([TestServer.start(), TestServer.start({ importWaitMs: IMPORT_WAIT_MS, importAbandonedMs: ABANDONED_MS })]);
    const eventId = await createEvent(origin, await createGroup(origin), { name: 'Staged night' });
    await seedFullEvent(origin, eventId, 'Stage');
    file = await download(origin, eventId);
    eventRecord = readFile(file).records[0].record;
    groupId = await createGroup(laptop, { name: 'Laptop group' });
  });
  after(async () => {
    await Promise.all([origin.stop(), laptop.stop()]);
  });

  it('is in no list and answers 404; an import of it waits while its import is alive, 409 after the wait, and follows it once it ends', async () => {
    assert.deepEqual(importLiveness(laptop.db), { abandonedMs: ABANDONED_MS, heartbeatMs: HEARTBEAT_MS });
    const hidden = await insertHiddenEvent(laptop.db, { ...(eventRecord as Omit<EventRow, 'id' | 'group_id'>), group_id: groupId });
    const alive = keepImportAlive(laptop.db, hidden);
    try {
      // Stamped as if its import had run a while: without its next heartbeat (due in
      // HEARTBEAT_MS) it would look dead a heartbeat and a half later, before the wait ends.
      const aged = new Date(Date.now() - (ABANDONED_MS - 2.5 * HEARTBEAT_MS)).toISOString();
      await laptop.db('events').where({ id: hidden }).update({ importing_since: aged });
      assert.equal((await laptop.get('/events')).body.count, 0);
      assert.deepEqual((await laptop.get(`/events/${hidden}`)).body, { detail: MSG.eventNotFound });
      assert.equal((await laptop.get(`/events/${hidden}/guests`)).status, 404);
      const refused = await importFile(laptop, file, `?group_id=${groupId}`);
      assert.equal(refused.status, 409);
      assert.deepEqual(refused.body, { detail: MSG.eventFileImportRunning });
      // Only the heartbeat kept it alive: its stamp moved on from the aged one.
      assert.ok(new Date((await laptop.db('events').where({ id: hidden }).first()).importing_since).getTime() > Date.parse(aged));
      // A second import waits in turn; the one under way ends, and the waiting one makes the event itself.
      const second = importFile(laptop, file, `?group_id=${groupId}`);
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
    // Last stamped just over ABANDONED_MS ago: its import is taken for dead, not waited for
    // (a wait would end in 409 after IMPORT_WAIT_MS).
    await laptop.db('events').where({ uid: record.uid }).update({ importing_since: new Date(Date.now() - ABANDONED_MS - 1000).toISOString() });
    const res = await importFile(laptop, crashed, `?group_id=${groupId}`);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.created.guests, 1);
    assert.equal((await laptop.get('/events')).body.count, 2);
    assert.equal((await laptop.db('events').where({ uid: record.uid }).first()).importing_since, null);
  });
});
