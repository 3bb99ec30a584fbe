import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TestServer } from '../helpers/server';
import { createEvent, createGroup } from '../helpers/fixtures';
import { download, importFile, rec, seedFullEvent, stamp } from '../helpers/event-files';
import { importEventFile } from '../../server/event-file';
import { MSG } from '../../core/messages';
import { ConflictError } from '../../core/errors';

const SETUP = 'not applied: a door role brings only check-ins, undos and new guests';

/**
 * The merge service's door option (DESIGN "Identity": a door role imports only check-ins,
 * undos and new guests; other changes are listed as conflicts). The caller's role is wired
 * to `allowSetupChanges` by the route; here the service is called as that route would.
 */
describe('importEventFile with allowSetupChanges: false (a door role)', () => {
  let office: TestServer;
  let door: TestServer;
  let eventId: number;
  let doorEventId: number;
  let doorFile: string;

  before(async () => {
    [office, door] = await Promise.all([TestServer.start(), TestServer.start()]);
    eventId = await createEvent(office, await createGroup(office), { name: 'Gala' });
    await seedFullEvent(office, eventId, 'Office');
    const imported = await importFile(door, await download(office, eventId));
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    doorEventId = imported.body.event_id;

    // At the door laptop: a scan, an undo, a walk-in with an answer ...
    const db = door.db;
    const type = await db('registration_types').where({ event_id: doorEventId }).first();
    const question = await db('custom_questions').where({ event_id: doorEventId }).first();
    const [walkIn] = await db('guests')
      .insert(rec({ event_id: doorEventId, registration_type_id: type.id, first_name: 'Walk', last_name: 'In', email: 'walk@x.test', barcode: 'WALK-1' }, -5))
      .returning('id');
    await db('guest_answers').insert(rec({ guest_id: walkIn.id, question_id: question.id, text_answer: 'Fish' }, -5));
    await db('checkins').insert(rec({ event_id: doorEventId, guest_id: walkIn.id, direction: 'in', scanned_at: stamp(5), station: 'Door laptop' }, -5));
    // A session scan that registered the walk-in on the spot.
    const session = await db('sessions').where({ event_id: doorEventId }).first();
    await db('session_registrations').insert(rec({ session_id: session.id, guest_id: walkIn.id }, -5));
    await db('guests').where({ id: walkIn.id }).update({ checked_in_at: stamp(5) });
    const officeGuest = await db('guests').where({ event_id: doorEventId, first_name: 'Office' }).first();
    await db('checkins').where({ guest_id: officeGuest.id }).update({ undone_at: stamp(5), modified: stamp(5) });
    await db('guests').where({ id: officeGuest.id }).update({ checked_in_at: null, modified: stamp(5) });
    // ... and set-up changes a door may not bring: the event renamed, a session renamed, a
    // guest's company changed, a new registration type, a new answer for a known guest.
    await db('events').where({ id: doorEventId }).update({ name: 'Gala (door copy)', modified: stamp(5) });
    await db('sessions').where({ event_id: doorEventId }).update({ name: 'Renamed', modified: stamp(5) });
    const [second] = await db('guests')
      .insert(rec({ event_id: doorEventId, registration_type_id: type.id, first_name: 'Known', last_name: 'Guest', email: 'k@x.test', barcode: 'KNOWN-1' }, 3600))
      .returning(['id', 'uid']);
    // Known to the office too (made before, exported then), changed at the door since.
    await office.db('guests').insert({ ...(await db('guests').where({ id: second.id }).first()), id: undefined, event_id: eventId, registration_type_id: (await office.db('registration_types').where({ event_id: eventId }).first()).id });
    await db('guests').where({ id: second.id }).update({ company: 'Door Co', modified: stamp(5) });
    await db('registration_types').insert(rec({ event_id: doorEventId, name: 'Door special', description: '' }, -5));
    await db('guest_answers').insert(rec({ guest_id: officeGuest.id, question_id: question.id, text_answer: 'Late answer' }, -5));

    doorFile = path.join(door.dir, 'door.doorlist.gz');
    fs.writeFileSync(doorFile, await download(door, doorEventId));
  });
  after(async () => {
    await Promise.all([office.stop(), door.stop()]);
  });

  it('takes the check-in, the undo and the walk-in with its answer and session registration, and lists every other change as a conflict', async () => {
    const before = {
      event: await office.db('events').where({ id: eventId }).first(),
      sessions: await office.db('sessions').where({ event_id: eventId }),
      types: await office.db('registration_types').where({ event_id: eventId }),
      known: await office.db('guests').where({ event_id: eventId, barcode: 'KNOWN-1' }).first(),
    };
    const result = await importEventFile(office.db, doorFile, { scope: null, allowSetupChanges: false });
    assert.equal(result.event_id, eventId);
    assert.equal(result.checkins_added, 1);
    assert.equal(result.updated.checkins, 1);
    assert.equal(result.created.guests, 1);
    assert.equal(result.created.guest_answers, 1);
    assert.equal(result.created.session_registrations, 1);
    assert.equal(result.created.registration_types, 0);
    assert.deepEqual(result.double_admissions, []);
    const doorDb = door.db;
    const uidOf = async (table: string, where: Record<string, unknown>) => (await doorDb(table).where(where).first()).uid;
    const lateAnswer = await uidOf('guest_answers', { text_answer: 'Late answer' });
    assert.deepEqual(
      result.conflicts.map((c) => ({ table: c.table, uid: c.uid, kind: c.kind, resolution: c.resolution })).sort((a, b) => a.table.localeCompare(b.table)),
      [
        { table: 'events', uid: before.event.uid, kind: 'setup_change', resolution: SETUP },
        { table: 'guest_answers', uid: lateAnswer, kind: 'setup_change', resolution: SETUP },
        { table: 'guests', uid: before.known.uid, kind: 'setup_change', resolution: SETUP },
        { table: 'registration_types', uid: await uidOf('registration_types', { name: 'Door special' }), kind: 'setup_change', resolution: SETUP },
        { table: 'sessions', uid: before.sessions[0].uid, kind: 'setup_change', resolution: SETUP },
      ],
    );
    assert.deepEqual(await office.db('events').where({ id: eventId }).first(), before.event);
    assert.deepEqual(await office.db('sessions').where({ event_id: eventId }), before.sessions);
    assert.deepEqual(await office.db('registration_types').where({ event_id: eventId }), before.types);
    assert.deepEqual(await office.db('guests').where({ id: before.known.id }).first(), before.known);
    const walkIn = await office.db('guests').where({ event_id: eventId, barcode: 'WALK-1' }).first();
    assert.ok(walkIn.checked_in_at);
    const officeGuest = await office.db('guests').where({ event_id: eventId, first_name: 'Office' }).first();
    assert.equal(officeGuest.checked_in_at, null);
  });

  it('refuses a file whose event is not here, writing nothing', async () => {
    const fresh = await TestServer.start();
    try {
      const events = Number((await fresh.db('events').count({ n: '*' }))[0].n);
      await assert.rejects(
        importEventFile(fresh.db, doorFile, { scope: null, allowSetupChanges: false }),
        (err: unknown) => err instanceof ConflictError && (err as ConflictError).body.detail === MSG.eventFileDoorNewEvent,
      );
      assert.equal(Number((await fresh.db('events').count({ n: '*' }))[0].n), events);
      assert.equal(Number((await fresh.db('groups').count({ n: '*' }))[0].n), 0);
    } finally {
      await fresh.stop();
    }
  });
});
