import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { TestServer } from '../helpers/server';
import { twoOrganisers } from '../helpers/fixtures';
import { download, importFile, readFile, seedFullEvent, stamp, writeFile, type FileLine } from '../helpers/event-files';

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
