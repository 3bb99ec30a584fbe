import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { TestServer } from '../helpers/server';
import { createApiKey, createEvent, createGroup } from '../helpers/fixtures';
import { MSG } from '../../core/messages';
import { EVENT_FILE_MEDIA_TYPE } from '../../server/event-file/format';
import { fileSearchTerms } from '../../db/search-index';
import { searchableGuests } from '../helpers/database';

const TABLES = [
  'events', 'registration_types', 'custom_questions', 'question_choices', 'tracks', 'sessions', 'session_tags', 'guests',
  'guest_answers', 'session_registrations', 'checkins', 'badge_prints', 'promotion_codes', 'promotion_code_registration_types',
];
const GZIP = { 'content-type': 'application/gzip' };

function stamp(offsetSeconds = 0): string {
  return new Date(Date.now() + offsetSeconds * 1000).toISOString();
}

function rec(extra: Record<string, unknown> = {}) {
  const now = stamp(-3600);
  return { uid: randomUUID(), created: now, modified: now, ...extra };
}

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

async function download(server: TestServer, eventId: number, token?: string): Promise<Buffer> {
  const res = await fetch(`${server.baseUrl}/events/${eventId}/export`, { headers: { authorization: `Token ${token ?? server.adminToken}` } });
  assert.equal(res.status, 200, await res.clone().text());
  return Buffer.from(await res.arrayBuffer());
}

function importFile(server: TestServer, file: Buffer | string, query = '', options: { token?: string; headers?: Record<string, string> } = {}) {
  return server.request('POST', `/events/import${query}`, { rawBody: file, headers: options.headers ?? GZIP, token: options.token });
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

describe('GET /events/:event_id/export', () => {
  let server: TestServer;
  let eventId: number;
  let groupId: number;
  before(async () => {
    server = await TestServer.start();
    groupId = await createGroup(server);
    eventId = await createEvent(server, groupId, { name: 'Launch Night' });
    await seedEvent(server, eventId);
  });
  after(() => server.stop());

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
  let source: TestServer;
  let target: TestServer;
  let file: Buffer;
  let targetGroup: number;
  let sourceEvent: number;
  let guestIds: number[];

  before(async () => {
    [source, target] = await Promise.all([TestServer.start(), TestServer.start()]);
    const group = await createGroup(source);
    sourceEvent = await createEvent(source, group);
    ({ guestIds } = await seedEvent(source, sourceEvent));
    file = await download(source, sourceEvent);
    targetGroup = await createGroup(target, { name: 'Door laptop 2' });
  });
  after(async () => {
    await Promise.all([source.stop(), target.stop()]);
  });

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
  let source: TestServer;
  let server: TestServer;
  let file: Buffer;
  let lines: any[];
  let before0: Record<string, number>;
  let groupId: number;

  before(async () => {
    [source, server] = await Promise.all([TestServer.start(), TestServer.start()]);
    const eventId = await createEvent(source, await createGroup(source));
    await seedEvent(source, eventId);
    file = await download(source, eventId);
    lines = linesOf(file);
    // The target has no such event: a whole file would create it, so any write would show.
    groupId = await createGroup(server);
    before0 = await tableCounts(server);
  });
  after(async () => {
    await Promise.all([source.stop(), server.stop()]);
  });

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
