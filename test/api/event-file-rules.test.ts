import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { MAX_DISCOUNT_AMOUNT } from '../../server/schemas/promotion-codes';
import { TestServer } from '../helpers/server';
import { createEvent, createGroup, createRoleKey } from '../helpers/fixtures';
import { download, importFile, readFile, seedFullEvent, writeFile, type FileLine } from '../helpers/event-files';

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
