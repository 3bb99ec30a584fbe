import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { TestServer } from '../helpers/server';
import { createApiKey, createEvent, createGroup } from '../helpers/fixtures';
import { GZIP, download, importFile, readFile, rec, seedFullEvent, stamp, writeFile } from '../helpers/event-files';
import { MSG } from '../../core/messages';
import { EVENT_FILE_MEDIA_TYPE } from '../../server/event-file/format';
import { importEventFile } from '../../server/event-file';
import { createDb } from '../../db/knex';
import { fileSearchTerms } from '../../db/search-index';
import { searchableGuests } from '../helpers/database';

const TABLES = [
  'events', 'registration_types', 'custom_questions', 'question_choices', 'tracks', 'sessions', 'session_tags', 'guests',
  'guest_answers', 'session_registrations', 'checkins', 'badge_prints', 'promotion_codes', 'promotion_code_registration_types',
];

/** A small but complete event, written at table level: every table of an event file has rows. */
async function seedEvent(server: TestServer, eventId: number) {
  const db = server.db;
  const [rt] = await db('registration_types').insert(rec({ event_id: eventId, name: 'Ticket', description: 'Entry', price: 12.5, door: 1 })).returning('id');
  const [q] = await db('custom_questions').insert(rec({ event_id: eventId, question: 'Diet?', type: 'radio' })).returning('id');
  const [veg] = await db('question_choices').insert(rec({ question_id: q.id, answer: 'Vegetarian', position: 0 })).returning('id');
  const [track] = await db('tracks').insert(rec({ event_id: eventId, name: 'Main', starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00' })).returning('id');
  const [session] = await db('sessions')
    .insert(rec({ event_id: eventId, track_id: track.id, name: 'Keynote', starts: '2026-12-01T18:00:00', ends: '2026-12-01T19:00:00' }))
    .returning('id');
  await db('session_tags').insert(rec({ session_id: session.id, tag: 'plenary' }));
  const guestIds: number[] = [];
  for (const [i, name] of ['Ada', 'Grace', 'Linus'].entries()) {
    const [g] = await db('guests')
      .insert(rec({ event_id: eventId, registration_type_id: rt.id, first_name: name, last_name: 'Guest', email: `${name.toLowerCase()}@x.test`, barcode: `BC-${i + 1}`, nfc_tag: i === 0 ? 'NFC-1' : null }))
      .returning('id');
    guestIds.push(g.id);
    await fileSearchTerms(db, eventId, [[name.toLowerCase()]], [g.id]);
  }
  await db('guest_answers').insert(rec({ guest_id: guestIds[0], question_id: q.id, choice_id: veg.id }));
  await db('session_registrations').insert(rec({ session_id: session.id, guest_id: guestIds[0] }));
  const scanned = stamp(-600);
  await db('checkins').insert(rec({ event_id: eventId, guest_id: guestIds[0], direction: 'in', scanned_at: scanned, station: 'door-1' }));
  await db('checkins').insert(rec({ event_id: eventId, guest_id: guestIds[1], direction: 'in', scanned_at: scanned, station: 'door-1', undone_at: stamp(-500) }));
  await db('guests').where({ id: guestIds[0] }).update({ checked_in_at: scanned });
  await db('badge_prints').insert(rec({ event_id: eventId, guest_id: guestIds[0], station: 'door-1', printed_by_name: 'admin', printed_at: scanned }));
  const [code] = await db('promotion_codes').insert(rec({ event_id: eventId, code: 'EARLY', discount_type: 'percent', discount_amount: 10, quantity: 5 })).returning('id');
  await db('promotion_code_registration_types').insert(rec({ promotion_code_id: code.id, registration_type_id: rt.id }));
  return { guestIds, registrationTypeId: rt.id };
}

async function tableCounts(server: TestServer): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) counts[table] = Number((await server.db(table).count({ n: '*' }))[0].n);
  counts.searchable_guests = await searchableGuests(server.db);
  return counts;
}

function linesOf(file: Buffer): any[] {
  return zlib.gunzipSync(file).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
}

/** Re-packs lines as a file with a correct checksum, as a well-meaning but foreign writer would. */
function repack(lines: any[], edit: (lines: any[]) => void): Buffer {
  const copy = structuredClone(lines);
  edit(copy);
  const body = copy.slice(0, -1).map((l) => JSON.stringify(l) + '\n').join('');
  const sha256 = require('node:crypto').createHash('sha256').update(body).digest('hex');
  const trailer = { trailer: { records: copy.length - 2, sha256 } };
  return zlib.gzipSync(body + JSON.stringify(trailer) + '\n');
}

/**
 * The laptop every describe exports from, each from an event and group of its own; the laptops
 * that import, whose rows are counted, are each describe's own. Launch Night (seedEvent) is
 * exported as it is by the first describe, then imported and changed by the second.
 */
let source: TestServer;
let launch: { eventId: number; guestIds: number[] };
before(async () => {
  source = await TestServer.start();
  const eventId = await createEvent(source, await createGroup(source), { name: 'Launch Night' });
  launch = { eventId, guestIds: (await seedEvent(source, eventId)).guestIds };
});
after(() => source.stop());

describe('GET /events/:event_id/export', () => {
  let server: TestServer;
  let eventId: number;
  before(() => {
    server = source;
    eventId = launch.eventId;
  });

  it('answers 200 with one gzip file: header, every record by uid, checksummed trailer', async () => {
    const res = await fetch(`${server.baseUrl}/events/${eventId}/export`, { headers: { authorization: `Token ${server.adminToken}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), EVENT_FILE_MEDIA_TYPE);
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename=Launch-Night.doorlist.gz');
    const lines = linesOf(Buffer.from(await res.arrayBuffer()));
    const [header] = lines;
    assert.equal(header.format, 'doorlist-event');
    assert.equal(header.version, 1);
    assert.equal(typeof header.station, 'string');
    assert.match(header.exported_at, /^\d{4}-\d{2}-\d{2}T/);
    assert.deepEqual(header.counts, {
      events: 1, registration_types: 1, custom_questions: 1, question_choices: 1, tracks: 1, sessions: 1, session_tags: 1, guests: 3,
      guest_answers: 1, session_registrations: 1, checkins: 2, badge_prints: 1, promotion_codes: 1, promotion_code_registration_types: 1,
    });
    assert.equal(header.checksum.algorithm, 'sha256');
    assert.equal(lines.length, 2 + 17);
    const guest = lines.find((l) => l.table === 'guests').record;
    assert.equal(typeof guest.registration_type_uid, 'string');
    assert.equal('id' in guest, false);
    assert.equal('registration_type_id' in guest, false);
    const undone = lines.filter((l) => l.table === 'checkins').map((l) => l.record.undone_at);
    assert.equal(undone.filter(Boolean).length, 1);
    const trailer = lines[lines.length - 1].trailer;
    assert.equal(trailer.records, 17);
    const body = zlib.gunzipSync(Buffer.from(await (await fetch(`${server.baseUrl}/events/${eventId}/export`, { headers: { authorization: `Token ${server.adminToken}` } })).arrayBuffer())).toString('utf8');
    const withoutTrailer = body.slice(0, body.lastIndexOf('\n', body.length - 2) + 1);
    const fileLines = body.trimEnd().split('\n');
    const ownTrailer = JSON.parse(fileLines[fileLines.length - 1]).trailer;
    assert.equal(require('node:crypto').createHash('sha256').update(withoutTrailer).digest('hex'), ownTrailer.sha256);
  });

  it('answers 404 for an event of another organiser', async () => {
    const other = await createGroup(server, { name: 'Other' });
    const key = await createApiKey(server, other);
    const res = await server.get(`/events/${eventId}/export`, { token: key });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: MSG.eventNotFound });
  });

  it('answers 404 for an event that does not exist', async () => {
    const res = await server.get('/events/999999/export');
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: MSG.eventNotFound });
  });
});

describe('POST /events/import', () => {
  let target: TestServer;
  let file: Buffer;
  let targetGroup: number;
  let sourceEvent: number;
  let guestIds: number[];

  before(async () => {
    target = await TestServer.start();
    ({ eventId: sourceEvent, guestIds } = launch);
    file = await download(source, sourceEvent);
    targetGroup = await createGroup(target, { name: 'Door laptop 2' });
  });
  after(() => target.stop());

  it('answers 400 group_id required when an administrator gives no group and the file carries none', async () => {
    const before = await tableCounts(target);
    const res = await importFile(target, repack(linesOf(file), (lines) => delete lines[0].group));
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { group_id: [MSG.required] });
    assert.deepEqual(await tableCounts(target), before);
  });

  it('answers 400 Group not found for a group out of the caller\'s scope', async () => {
    const other = await createGroup(target, { name: 'Someone else' });
    const key = await createApiKey(target, targetGroup);
    const res = await importFile(target, file, `?group_id=${other}`, { token: key });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { details: MSG.groupNotFound });
  });

  it('answers 201 and creates the event whole, every record with its uid', async () => {
    const res = await importFile(target, file, `?group_id=${targetGroup}`);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const ones = { events: 1, registration_types: 1, custom_questions: 1, question_choices: 1, tracks: 1, sessions: 1, session_tags: 1, guest_answers: 1, session_registrations: 1, badge_prints: 1, promotion_codes: 1, promotion_code_registration_types: 1 };
    assert.deepEqual(res.body.created, { ...ones, guests: 3, checkins: 2 });
    assert.equal(res.body.event_created, true);
    assert.equal(res.body.checkins_added, 2);
    assert.deepEqual(res.body.conflicts, []);
    assert.deepEqual(res.body.double_admissions, []);
    const event = await target.get(`/events/${res.body.event_id}`);
    assert.equal(event.body.group_id, targetGroup);
    assert.equal(event.body.name, 'Launch Night');
    const sourceGuests = await source.db('guests').where({ event_id: sourceEvent }).orderBy('uid').select('uid', 'barcode', 'nfc_tag', 'checked_in_at', 'modified');
    const targetGuests = await target.db('guests').where({ event_id: res.body.event_id }).orderBy('uid').select('uid', 'barcode', 'nfc_tag', 'checked_in_at', 'modified');
    assert.deepEqual(targetGuests, sourceGuests);
    for (const search of ['ada@x.test', 'bc-1', 'grace']) {
      assert.equal((await target.get(`/events/${res.body.event_id}/guests?search=${search}`)).body.count, 1, search);
    }
  });

  it('answers 200 and changes nothing when the same file comes again', async () => {
    const before = await tableCounts(target);
    const res = await importFile(target, file);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.event_created, false);
    assert.ok(Object.values(res.body.created).every((n) => n === 0));
    assert.ok(Object.values(res.body.updated).every((n) => n === 0));
    assert.equal(res.body.unchanged.guests, 3);
    assert.equal(res.body.checkins_added, 0);
    assert.deepEqual(await tableCounts(target), before);
  });

  it('stores scan times written another way as the instants they name, as this laptop writes them', async () => {
    const rewritten = repack(linesOf(file), (lines) => {
      for (const line of lines) if (line.table === 'checkins') line.record.scanned_at = line.record.scanned_at.replace('T', ' ').replace('Z', '+00:00');
    });
    const fresh = await TestServer.start();
    try {
      const res = await importFile(fresh, rewritten);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const times = async (server: TestServer) => server.db('checkins').orderBy('uid').pluck('scanned_at');
      assert.deepEqual(await times(fresh), await times(source));
      assert.match((await times(fresh))[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    } finally {
      await fresh.stop();
    }
  });

  it('answers 404 when the file\'s event exists here out of the caller\'s scope', async () => {
    const stranger = await createGroup(target, { name: 'Stranger' });
    const key = await createApiKey(target, stranger);
    const before = await tableCounts(target);
    const res = await importFile(target, file, '', { token: key });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: MSG.eventNotFound });
    assert.deepEqual(await tableCounts(target), before);
  });

  it('merges: the later change wins, an undo travels, a barcode clash is reported', async () => {
    const targetEvent = (await target.db('events').where({ uid: (await source.db('events').where({ id: sourceEvent }).first()).uid }).first()).id;
    const [ada, grace] = await source.db('guests').whereIn('id', guestIds.slice(0, 2)).orderBy('id');
    // Source: Ada renamed later than target's change; target: Grace renamed later than source's.
    await source.db('guests').where({ id: ada.id }).update({ company: 'Source Co', modified: stamp(10) });
    await target.db('guests').where({ uid: ada.uid }).update({ company: 'Target Co', modified: stamp(5) });
    await source.db('guests').where({ id: grace.id }).update({ company: 'Old', modified: stamp(5) });
    await target.db('guests').where({ uid: grace.uid }).update({ company: 'Newest', modified: stamp(10) });
    // A guest new on the target whose barcode a new guest of the source also uses.
    const rtId = (await target.db('registration_types').where({ event_id: targetEvent }).first()).id;
    await target.db('guests').insert(rec({ event_id: targetEvent, registration_type_id: rtId, first_name: 'Tara', last_name: 'Target', email: 't@x.test', barcode: 'SAME' }));
    const rtSource = (await source.db('registration_types').where({ event_id: sourceEvent }).first()).id;
    const [sam] = await source.db('guests').insert(rec({ event_id: sourceEvent, registration_type_id: rtSource, first_name: 'Sam', last_name: 'Source', email: 's@x.test', barcode: 'SAME' })).returning(['id', 'uid']);
    await source.db('checkins').insert(rec({ event_id: sourceEvent, guest_id: sam.id, direction: 'in', scanned_at: stamp(-60), station: 'door-1' }));
    // Answers follow the later record: Ada's (source newer) removed, one added to Grace's (target newer).
    await source.db('guest_answers').where({ guest_id: ada.id }).delete();
    const q = await source.db('custom_questions').where({ event_id: sourceEvent }).first();
    const choice = await source.db('question_choices').where({ question_id: q.id }).first();
    await source.db('guest_answers').insert(rec({ guest_id: grace.id, question_id: q.id, choice_id: choice.id }));
    // The check-in of Ada undone on the source.
    await source.db('checkins').where({ guest_id: ada.id }).update({ undone_at: stamp(1), modified: stamp(1) });
    await source.db('guests').where({ id: ada.id }).update({ checked_in_at: null });

    const res = await importFile(target, await download(source, sourceEvent));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.updated.guests, 1);
    assert.equal(res.body.updated.checkins, 1);
    assert.equal(res.body.skipped.guests, 1);
    assert.equal(res.body.skipped.checkins, 1);
    assert.equal(res.body.conflicts.length, 1);
    const [conflict] = res.body.conflicts;
    assert.equal(conflict.kind, 'barcode');
    assert.equal(conflict.value, 'SAME');
    assert.equal(conflict.uid, sam.uid);
    assert.equal(conflict.resolution, 'guest skipped');
    assert.equal(conflict.existing_guest.first_name, 'Tara');
    const byUid = async (uid: string) => target.db('guests').where({ uid }).first();
    assert.equal((await byUid(ada.uid)).company, 'Source Co');
    assert.equal((await byUid(ada.uid)).checked_in_at, null);
    assert.equal((await byUid(grace.uid)).company, 'Newest');
    assert.equal(await byUid(sam.uid), undefined);
    assert.equal(res.body.deleted.guest_answers, 1);
    assert.equal(res.body.created.guest_answers, 0);
    const answersOf = async (uid: string) => Number((await target.db('guest_answers').where({ guest_id: (await byUid(uid)).id }).count({ n: '*' }))[0].n);
    assert.equal(await answersOf(ada.uid), 0);
    assert.equal(await answersOf(grace.uid), 0);
  });
});

describe('POST /events/import with a file that is not whole, not ours or too new', () => {
  let server: TestServer;
  let file: Buffer;
  let lines: any[];
  let before0: Record<string, number>;
  let groupId: number;

  before(async () => {
    server = await TestServer.start();
    const eventId = await createEvent(source, await createGroup(source));
    await seedEvent(source, eventId);
    file = await download(source, eventId);
    lines = linesOf(file);
    // The target has no such event: a whole file would create it, so any write would show.
    groupId = await createGroup(server);
    before0 = await tableCounts(server);
  });
  after(() => server.stop());

  async function refused(body: Buffer | string, detail: string, headers = GZIP) {
    const res = await importFile(server, body, `?group_id=${groupId}`, { headers });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body, { detail });
    assert.deepEqual(await tableCounts(server), before0);
  }

  it('answers 400 damaged for a truncated file', async () => {
    await refused(file.subarray(0, Math.floor(file.length * 0.6)), MSG.eventFileDamaged);
    await refused(file.subarray(0, file.length - 4), MSG.eventFileDamaged);
  });

  it('answers 400 damaged for a bit-flipped file', async () => {
    for (const at of [Math.floor(file.length / 2), file.length - 6, 30]) {
      const flipped = Buffer.from(file);
      flipped[at] ^= 0x10;
      await refused(flipped, MSG.eventFileDamaged);
    }
  });

  it('answers 400 damaged when a record was altered after export', async () => {
    const body = zlib.gunzipSync(file).toString('utf8').replace('"Ada"', '"Eve"');
    await refused(zlib.gzipSync(body), MSG.eventFileDamaged);
  });

  it('answers 400 not a Doorlist file for a random gzip, a JSON file and an empty body', async () => {
    await refused(zlib.gzipSync(Buffer.from('hello\nworld\n')), MSG.eventFileForeign);
    await refused(JSON.stringify({ format: 'something-else' }), MSG.eventFileForeign, { 'content-type': 'application/octet-stream' });
    await refused(zlib.gzipSync(JSON.stringify({ format: 'other', version: 1 }) + '\n'), MSG.eventFileForeign);
    await refused(Buffer.alloc(0), MSG.eventFileForeign);
  });

  it('answers 400 asking for the file itself when it is sent as JSON', async () => {
    await refused(JSON.stringify({ format: 'doorlist-event' }), MSG.eventFileContentType, { 'content-type': 'application/json' });
  });

  it('answers 400 newer version for a file of format version 2', async () => {
    await refused(repack(lines, (l) => { l[0].version = 2; }), MSG.eventFileNewer(2, 1));
  });

  it('answers 400 and writes nothing when a record deep in the file is invalid', async () => {
    const bad = repack(lines, (l) => { l[l.length - 3].record.code = null; });
    const res = await importFile(server, bad, `?group_id=${groupId}`);
    assert.equal(res.status, 400);
    assert.match(res.body.detail, /^The event file cannot be imported: /);
    assert.deepEqual(await tableCounts(server), before0);
  });

  it('answers 400 and writes nothing when a record refers to a parent not in the file', async () => {
    const bad = repack(lines, (l) => { l.find((x: any) => x.table === 'guests').record.registration_type_uid = randomUUID(); });
    const res = await importFile(server, bad, `?group_id=${groupId}`);
    assert.equal(res.status, 400);
    assert.match(res.body.detail, /refers to a registration_types record that is not in the file/);
    assert.deepEqual(await tableCounts(server), before0);
  });

  it('answers 400 and writes nothing when a late batch of many breaks a rule while the batch before it is still being written', async () => {
    // 7,000 guests are four batches, written two at a time; the last guest repeats the first's barcode.
    const bad = repack(lines, (l) => {
      const at = l.findIndex((x: any) => x.table === 'guests');
      const guest = l[at].record;
      const more = Array.from({ length: 7000 }, (_, i) => ({ table: 'guests', record: { ...guest, uid: randomUUID(), barcode: `MANY-${i}`, nfc_tag: null } }));
      more[more.length - 1].record.barcode = more[0].record.barcode;
      l.splice(at + 1, 0, ...more);
      l[0].counts.guests += more.length;
    });
    const res = await importFile(server, bad, `?group_id=${groupId}`);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.match(res.body.detail, /a guests record breaks a rule of the database/);
    assert.deepEqual(await tableCounts(server), before0);
  });

  it('answers 400 damaged when the counts of the header do not match the records', async () => {
    await refused(repack(lines, (l) => { l[0].counts.guests = 4; }), MSG.eventFileDamaged);
  });

  it('answers 201 for the whole file after all those refusals', async () => {
    const res = await importFile(server, file, `?group_id=${groupId}`);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.created.guests, 3);
  });
});

describe('GET /events/:event_id/export?since=T (a delta)', () => {
  let laptop1: TestServer;
  let laptop2: TestServer;
  let eventId: number;
  let since: string;
  let delta: ReturnType<typeof readFile>;

  before(async () => {
    laptop1 = source;
    laptop2 = await TestServer.start();
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
  after(() => laptop2.stop());

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
    origin = source;
    fresh = await TestServer.start();
    const groupId = await createGroup(origin, { name: 'Festival Crew', email: 'crew@fest.test', phone: '+31 20 555 0100', website: 'https://fest.test', type: 'Venue' });
    originGroup = await origin.db('groups').where({ id: groupId }).first();
    const eventId = await createEvent(origin, groupId, { name: 'Festival' });
    await seedFullEvent(origin, eventId, 'Fest');
    file = await download(origin, eventId);
  });
  after(() => fresh.stop());

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
