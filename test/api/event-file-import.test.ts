import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import type { Knex } from 'knex';
import { MSG } from '../../core/messages';
import { MAX_DISCOUNT_AMOUNT } from '../../server/schemas/promotion-codes';
import { TestServer } from '../helpers/server';
import { createEvent, createGroup, createRoleKey, twoOrganisers } from '../helpers/fixtures';
import { download, type FileLine, importFile, readFile, rec, seedFullEvent, stamp, writeFile } from '../helpers/event-files';
import { importEventFile } from '../../server/event-file';
import { ConflictError } from '../../core/errors';
import { scan, seedGuests, seedRegistrationType } from '../helpers/checkins';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { createDb, migrateLatest } from '../../db/knex';
import { guestsWithSearchTerms } from '../../db/search-index';
import { discardHiddenEvent, importLiveness, insertHiddenEvent, keepImportAlive } from '../../db/repositories/event-file-merge';
import type { EventRow } from '../../db/repositories/events';

/**
 * POST /events/import, one rule at a time: every record checked with the API's rules, uids of
 * another group, a door role's file, a new event written with no door at work, and an event
 * still being imported. One file (past 400 lines) so they share one process and module load;
 * each part keeps servers of its own.
 */

/** The file with `change` applied to the first record of `table`. */
function altered(file: Buffer, table: string, change: (record: Record<string, any>) => Record<string, any>): Buffer {
  const { header, records } = readFile(file);
  let done = false;
  const lines = records.map((line: FileLine) => {
    if (done || line.table !== table) return line;
    done = true;
    return { ...line, record: change(line.record) };
  });
  assert.ok(done, `the file holds a ${table} record`);
  return writeFile(header, lines);
}

describe('POST /events/import checks every record with the API rules', () => {
  let origin: TestServer;
  let fresh: TestServer;
  let file: Buffer;
  let eventId: number;
  before(async () => {
    [origin, fresh] = await Promise.all([TestServer.start(), TestServer.start()]);
    eventId = await createEvent(origin, await createGroup(origin), { name: 'Rules night' });
    await seedFullEvent(origin, eventId, 'Rule');
    file = await download(origin, eventId);
  });
  after(async () => {
    await Promise.all([origin?.stop(), fresh?.stop()]);
  });

  const refusals: [string, string, (r: Record<string, any>) => Record<string, any>, string][] = [
    ['a time zone off the list', 'events', (r) => ({ ...r, timezone: 'Mars/Olympus_Mons' }), `its event record is invalid (timezone: ${MSG.invalidTimezone})`],
    ['an event that ends before it starts', 'events', (r) => ({ ...r, ends: '2000-01-01T00:00:00' }), `its event record is invalid (ends: ${MSG.eventEndsBeforeStart})`],
    ['a NUL character in a name', 'guests', (r) => ({ ...r, first_name: 'Ro\u0000bert' }), `a guests record is invalid (first_name: ${MSG.nullCharacter})`],
    ['a blank barcode', 'guests', (r) => ({ ...r, barcode: '\u200B ' }), `a guests record is invalid (barcode: ${MSG.barcodeEmpty})`],
    ['a guest status the API never sets', 'guests', (r) => ({ ...r, objstatus: 999 }), `a guests record is invalid (objstatus: ${MSG.invalidGuestObjstatus})`],
    ['a question status the API never sets', 'custom_questions', (r) => ({ ...r, objstatus: 7 }), `a custom_questions record is invalid (objstatus: ${MSG.invalidQuestionObjstatus})`],
    ['a discount of 1e300', 'promotion_codes', (r) => ({ ...r, discount_type: 'flat', discount_amount: 1e300 }), `a promotion_codes record is invalid (discount_amount: Ensure this value is less than or equal to ${MAX_DISCOUNT_AMOUNT}.)`],
    ['a percent discount over 100', 'promotion_codes', (r) => ({ ...r, discount_type: 'percent', discount_amount: 150 }), `a promotion_codes record is invalid (discount_amount: ${MSG.percentOver100})`],
    ['a session that ends before it starts', 'sessions', (r) => ({ ...r, ends: '2000-01-01T00:00:00' }), `a sessions record is invalid (starts: ${MSG.sessionDatesOrder})`],
    ['a day that does not exist', 'events', (r) => ({ ...r, starts: '2026-02-30T10:00' }), `its event record is invalid (starts: ${MSG.datetimeFormat})`],
    ['a modified stamp on a day that does not exist', 'guests', (r) => ({ ...r, modified: '2026-02-30T10:00:00.000Z' }), 'a guests record is invalid (modified: Not a real time.)'],
    ['a scan on a day that does not exist', 'checkins', (r) => ({ ...r, scanned_at: '2026-02-30T10:00:00.000Z' }), 'a checkins record is invalid (scanned_at: Not a real time.)'],
    ['a scan in the year 9999', 'checkins', (r) => ({ ...r, scanned_at: '9999-12-31T10:00:00.000Z' }), `a checkins record is invalid (scanned_at: ${MSG.scanTimeOutOfRange})`],
    ['a scan uid of control characters', 'checkins', (r) => ({ ...r, uid: '\u0001\u0002' }), `a checkins record is invalid (uid: ${MSG.scanUidInvalid})`],
    ['a scan uid with a space', 'checkins', (r) => ({ ...r, uid: 'a scan' }), `a checkins record is invalid (uid: ${MSG.scanUidInvalid})`],
    ['a guest uid that is not a UUID', 'guests', (r) => ({ ...r, uid: 'guest one' }), `a guests record is invalid (uid: ${MSG.uuidInvalid})`],
    ['a parent named by something else than a UUID', 'guests', (r) => ({ ...r, registration_type_uid: ' ' }), `a guests record is invalid (registration_type_uid: ${MSG.uuidInvalid})`],
    ['an event uid that is not a UUID', 'events', (r) => ({ ...r, uid: 'x' }), `its event record is invalid (uid: ${MSG.uuidInvalid})`],
    ['a negative capacity', 'sessions', (r) => ({ ...r, capacity: -5 }), 'a sessions record is invalid (capacity: Ensure this value is greater than or equal to 0.)'],
  ];
  for (const [what, table, change, reason] of refusals) {
    it(`answers 400 for ${what}, and writes nothing`, async () => {
      const res = await importFile(fresh, altered(file, table, change));
      assert.deepEqual([res.status, res.body], [400, { detail: MSG.eventFileInvalid(reason) }]);
      assert.equal(Number((await fresh.db('events').count({ n: '*' }))[0].n), 0);
    });
  }

  it('stores codes and text in the form the API stores them (canonical, trimmed)', async () => {
    const res = await importFile(fresh, altered(file, 'guests', (r) => ({ ...r, barcode: ' Rule\u200B-1\u00AD ', first_name: 'Rene\u0301' })));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const guests = await fresh.get(`/events/${res.body.event_id}/guests`);
    assert.equal(guests.body.results[0].barcode, 'Rule-1');
    assert.equal(guests.body.results[0].first_name, 'Ren\u00E9');
    const scan = await fresh.post(`/events/${res.body.event_id}/checkins`, { barcode: 'Rule-1', direction: 'out' });
    assert.equal(scan.status, 201, JSON.stringify(scan.body));
  });
});

describe('GET /events/:event_id/export for a door role', () => {
  let server: TestServer;
  let eventId: number;
  let groupId: number;
  before(async () => {
    server = await TestServer.start();
    groupId = await createGroup(server);
    eventId = await createEvent(server, groupId);
    await seedFullEvent(server, eventId, 'Door');
  });
  after(() => server?.stop());

  it('leaves promotion codes out, as the API hides them from a door', async () => {
    const doorKey = await createRoleKey(server, groupId, 'door');
    assert.equal((await server.get(`/events/${eventId}/promotion_codes`, { token: doorKey })).status, 403);
    const { header, records } = readFile(await download(server, eventId, doorKey));
    assert.deepEqual(records.filter((l) => l.table.startsWith('promotion_code')), []);
    assert.equal(header.counts.promotion_codes, undefined);
    assert.ok(records.some((l) => l.table === 'guests'));
    const managed = readFile(await download(server, eventId));
    assert.equal(managed.records.filter((l) => l.table === 'promotion_codes').length, 1);
  });

  it('leaves them out of the changes a door key pulls to follow the event (GET /events/:event_id/sync/changes)', async () => {
    const doorKey = await createRoleKey(server, groupId, 'door');
    const pull = async (token?: string) => {
      const res = await fetch(`${server.baseUrl}/events/${eventId}/sync/changes`, { headers: { authorization: `Token ${token ?? server.adminToken}` } });
      assert.equal(res.status, 200, await res.clone().text());
      return readFile(Buffer.from(await res.arrayBuffer()));
    };
    const { records } = await pull(doorKey);
    assert.deepEqual(records.filter((l) => l.table.startsWith('promotion_code')), []);
    assert.ok(records.some((l) => l.table === 'guests'));
    assert.equal((await pull()).records.filter((l) => l.table === 'promotion_codes').length, 1);
  });
});

const OTHER_EVENT = 'skipped: this uid belongs to another event here';

describe('POST /events/import of a file carrying uids of another group', () => {
  let server: TestServer;
  let orgs: Awaited<ReturnType<typeof twoOrganisers>>;
  let fileA: ReturnType<typeof readFile>;
  let fileB: ReturnType<typeof readFile>;

  before(async () => {
    server = await TestServer.start();
    orgs = await twoOrganisers(server);
    await seedFullEvent(server, orgs.a.eventId, 'A');
    await seedFullEvent(server, orgs.b.eventId, 'B');
    // Real exports: A's file (which B once held), and B's own.
    fileA = readFile(await download(server, orgs.a.eventId, orgs.a.key));
    fileB = readFile(await download(server, orgs.b.eventId, orgs.b.key));
  });
  after(() => server.stop());

  const one = (file: typeof fileA, table: string, where: (r: Record<string, any>) => boolean = () => true) => {
    const line = file.records.find((l) => l.table === table && where(l.record));
    assert.ok(line, table);
    return line.record;
  };

  /** Every row of A's event file, as it stands in the database now, by uid. */
  async function rowsOfA(): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = { event: await server.db('events').where({ id: orgs.a.eventId }).first() };
    for (const { table, record } of fileA.records) out[`${table}:${record.uid}`] = await server.db(table).where({ uid: record.uid }).first();
    return out;
  }

  it('answers 200 into B\'s own event, lists each of A\'s uids as a conflict and leaves A\'s records as they were', async () => {
    const now = stamp(60);
    const later = (r: Record<string, any>) => ({ ...r, modified: now });
    const bGuest = one(fileB, 'guests');
    const bQuestion = one(fileB, 'custom_questions');
    const bSession = one(fileB, 'sessions');
    const bCode = one(fileB, 'promotion_codes');
    const bType = one(fileB, 'registration_types');
    const aFish = one(fileA, 'question_choices', (r) => r.answer === 'Fish');
    const aAnswer = one(fileA, 'guest_answers');
    const aTag = one(fileA, 'session_tags');
    const aRegistration = one(fileA, 'session_registrations');
    const aLink = one(fileA, 'promotion_code_registration_types');
    const aGuest = one(fileA, 'guests');
    const aQuestion = one(fileA, 'custom_questions');
    // B's parents made later, so their file versions win and take their child sets whole;
    // under them, children that carry A's uids: the attack of issue 11 item 3.
    const attack: FileLine[] = [
      ...fileB.records.filter((l) => !['guests', 'sessions', 'promotion_codes'].includes(l.table)),
      { table: 'guests', record: later(bGuest) },
      { table: 'sessions', record: later(bSession) },
      { table: 'promotion_codes', record: later(bCode) },
      { table: 'question_choices', record: { ...aFish, question_uid: bQuestion.uid, answer: 'Fish (taken)', modified: now } },
      { table: 'guest_answers', record: { ...aAnswer, guest_uid: bGuest.uid, question_uid: bQuestion.uid, choice_uid: null, text_answer: 'moved', modified: now } },
      { table: 'session_tags', record: { ...aTag, session_uid: bSession.uid, tag: 'taken', modified: now } },
      { table: 'session_registrations', record: { ...aRegistration, guest_uid: bGuest.uid, session_uid: bSession.uid, modified: now } },
      { table: 'promotion_code_registration_types', record: { ...aLink, promotion_code_uid: bCode.uid, registration_type_uid: bType.uid, modified: now } },
      // Children that name A's parents themselves: those parents act as absent.
      { table: 'guest_answers', record: { uid: randomUUID(), created: now, modified: now, guest_uid: aGuest.uid, question_uid: bQuestion.uid, choice_uid: null, text_answer: 'x' } },
      { table: 'question_choices', record: { uid: randomUUID(), created: now, modified: now, question_uid: aQuestion.uid, answer: 'Poison', position: 9 } },
    ];
    const before = await rowsOfA();
    const res = await importFile(server, writeFile(fileB.header, attack), '', { token: orgs.b.key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.event_id, orgs.b.eventId);
    const conflicts = res.body.conflicts.map((c: Record<string, unknown>) => ({ table: c.table, uid: c.uid, kind: c.kind, resolution: c.resolution }));
    const expected = [
      { table: 'custom_questions', uid: aQuestion.uid },
      { table: 'question_choices', uid: aFish.uid },
      { table: 'session_tags', uid: aTag.uid },
      { table: 'guests', uid: aGuest.uid },
      { table: 'guest_answers', uid: aAnswer.uid },
      { table: 'session_registrations', uid: aRegistration.uid },
      { table: 'promotion_code_registration_types', uid: aLink.uid },
    ].map((c) => ({ ...c, kind: 'other_event', resolution: OTHER_EVENT }));
    const byTable = (a: { table: string; uid: string }, b: { table: string; uid: string }) => `${a.table}${a.uid}`.localeCompare(`${b.table}${b.uid}`);
    assert.deepEqual(conflicts.sort(byTable), expected.sort(byTable));
    assert.deepEqual(await rowsOfA(), before);
    // B's own records came through: its guest kept its answer, its session its tag.
    const bGuestRow = await server.db('guests').where({ uid: bGuest.uid }).first();
    assert.equal(Number((await server.db('guest_answers').where({ guest_id: bGuestRow.id }).count({ n: '*' }))[0].n), 1);
    assert.equal(res.body.skipped.guest_answers, 2);
    assert.equal(res.body.skipped.question_choices, 2);
    assert.deepEqual(res.body.deleted, Object.fromEntries(Object.keys(res.body.deleted).map((t) => [t, 0])));
  });

  it('answers 200 with the same conflicts when the file is a delta naming A\'s parents it does not hold', async () => {
    const aGuest = one(fileA, 'guests');
    const now = stamp(120);
    const delta: FileLine[] = [
      { table: 'events', record: one(fileB, 'events') },
      { table: 'session_registrations', record: { uid: randomUUID(), created: now, modified: now, guest_uid: aGuest.uid, session_uid: one(fileB, 'sessions').uid } },
    ];
    const before = await rowsOfA();
    const res = await importFile(server, writeFile(fileB.header, delta), '', { token: orgs.b.key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.conflicts.map((c: Record<string, unknown>) => [c.table, c.uid, c.kind]),
      [['guests', aGuest.uid, 'other_event']],
    );
    assert.equal(res.body.skipped.session_registrations, 1);
    assert.deepEqual(await rowsOfA(), before);
  });
});

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
