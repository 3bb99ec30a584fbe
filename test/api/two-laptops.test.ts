import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestServer } from '../helpers/server';
import { createEvent, createGroup } from '../helpers/fixtures';
import { searchableGuests } from '../helpers/database';

const GZIP = { 'content-type': 'application/gzip' };
const TABLES = ['events', 'registration_types', 'guests', 'checkins'];

async function exportFile(server: TestServer, eventId: number): Promise<Buffer> {
  const res = await fetch(`${server.baseUrl}/events/${eventId}/export`, { headers: { authorization: `Token ${server.adminToken}` } });
  assert.equal(res.status, 200, await res.clone().text());
  return Buffer.from(await res.arrayBuffer());
}

function importFile(server: TestServer, file: Buffer, query = '') {
  return server.request('POST', `/events/import${query}`, { rawBody: file, headers: GZIP });
}

async function addGuest(server: TestServer, eventId: number, registrationType: number, firstName: string) {
  const res = await server.post(`/events/${eventId}/guests`, {
    registration_type: registrationType,
    first_name: firstName,
    last_name: 'Guest',
    email: `${firstName.toLowerCase()}@guests.test`,
    barcode: `CODE-${firstName.toUpperCase()}`,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id as number;
}

async function checkIn(server: TestServer, eventId: number, barcode: string, station: string, scannedAt: string) {
  const res = await server.post(`/events/${eventId}/checkins`, { barcode, station, scanned_at: scannedAt });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** What both laptops must agree on, by uid (ids differ between laptops). */
async function state(server: TestServer, eventId: number) {
  const guests = await server.db('guests').where({ event_id: eventId }).orderBy('uid').select('uid', 'first_name', 'company', 'barcode', 'checked_in_at');
  const checkins = await server.db('checkins as c')
    .join('guests as g', 'g.id', 'c.guest_id')
    .where('c.event_id', eventId)
    .orderBy('c.uid')
    .select('c.uid', 'g.uid as guest_uid', 'c.direction', 'c.station', 'c.scanned_at', 'c.undone_at');
  return { guests, checkins };
}

async function counts(server: TestServer): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of TABLES) out[t] = Number((await server.db(t).count({ n: '*' }))[0].n);
  out.searchable_guests = await searchableGuests(server.db);
  return out;
}

describe('Two laptops apart at the door, merged through event files', () => {
  let laptop1: TestServer;
  let laptop2: TestServer;
  let event1: number;
  let event2: number;
  let file1: Buffer;
  let file2: Buffer;
  let result1: any;
  let result2: any;

  before(async () => {
    [laptop1, laptop2] = await Promise.all([TestServer.start(), TestServer.start()]);
    const group1 = await createGroup(laptop1, { name: 'Box office' });
    event1 = await createEvent(laptop1, group1, { name: 'Gala' });
    const rt = await laptop1.post(`/events/${event1}/registration_types`, { type: 'ticket', name: 'Entry', description: 'Door' });
    assert.equal(rt.status, 201, JSON.stringify(rt.body));
    for (const name of ['Ada', 'Bob', 'Cy', 'Dee']) await addGuest(laptop1, event1, rt.body.id, name);

    // Laptop 2 gets the event before the doors open.
    const group2 = await createGroup(laptop2, { name: 'Side door' });
    const first = await importFile(laptop2, await exportFile(laptop1, event1), `?group_id=${group2}`);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    event2 = first.body.event_id;

    // Apart: each door admits different guests, and Cy gets in at both.
    await checkIn(laptop1, event1, 'CODE-ADA', 'front', '2026-12-01T18:05:00');
    await checkIn(laptop1, event1, 'CODE-CY', 'front', '2026-12-01T18:10:00');
    await checkIn(laptop2, event2, 'CODE-BOB', 'side', '2026-12-01T18:06:00');
    await checkIn(laptop2, event2, 'CODE-CY', 'side', '2026-12-01T18:20:00');
    const mistake = await checkIn(laptop2, event2, 'CODE-DEE', 'side', '2026-12-01T18:07:00');
    assert.equal((await laptop2.delete(`/events/${event2}/checkins/${mistake.id}`)).status, 204);
    // A walk-in added on laptop 1 only.
    const rt1 = (await laptop1.db('registration_types').where({ event_id: event1 }).first()).id;
    await addGuest(laptop1, event1, rt1, 'Eve');

    file1 = await exportFile(laptop1, event1);
    file2 = await exportFile(laptop2, event2);
    [result1, result2] = [await importFile(laptop1, file2), await importFile(laptop2, file1)];
  });

  after(async () => {
    await Promise.all([laptop1.stop(), laptop2.stop()]);
  });

  it('merges each file into the existing event (200), adding only the other side\'s check-ins', () => {
    assert.equal(result1.status, 200, JSON.stringify(result1.body));
    assert.equal(result2.status, 200, JSON.stringify(result2.body));
    assert.equal(result1.body.event_id, event1);
    assert.equal(result2.body.event_id, event2);
    // Laptop 1 receives Bob, Cy (side) and Dee's undone scan; laptop 2 receives Ada and Cy (front).
    assert.equal(result1.body.checkins_added, 3);
    assert.equal(result2.body.checkins_added, 2);
    assert.equal(result2.body.created.guests, 1);
    assert.equal(result1.body.created.guests, 0);
    assert.deepEqual(result1.body.conflicts, []);
    assert.deepEqual(result2.body.conflicts, []);
  });

  it('reports Cy as admitted at both doors, with both stations and times', () => {
    for (const result of [result1, result2]) {
      assert.equal(result.body.double_admissions.length, 1, JSON.stringify(result.body.double_admissions));
      const [double] = result.body.double_admissions;
      assert.equal(double.name, 'Cy Guest');
      assert.deepEqual(
        double.checkins.map((c: any) => [c.station, c.scanned_at]),
        [
          ['front', '2026-12-01T18:10:00'],
          ['side', '2026-12-01T18:20:00'],
        ],
      );
    }
    assert.equal(result1.body.double_admissions[0].guest_id !== undefined, true);
  });

  it('leaves both laptops with the same guests and the union of check-ins, nothing duplicated', async () => {
    const [s1, s2] = [await state(laptop1, event1), await state(laptop2, event2)];
    assert.deepEqual(s1, s2);
    assert.deepEqual(s1.guests.map((g: any) => g.first_name).sort(), ['Ada', 'Bob', 'Cy', 'Dee', 'Eve']);
    assert.equal(s1.checkins.length, 5);
    assert.equal(new Set(s1.checkins.map((c: any) => c.uid)).size, 5);
    const inside = s1.guests.filter((g: any) => g.checked_in_at).map((g: any) => g.first_name).sort();
    assert.deepEqual(inside, ['Ada', 'Bob', 'Cy']);
    assert.equal(s1.checkins.filter((c: any) => c.undone_at).length, 1);
  });

  it('shows the merged door state through the API on both laptops', async () => {
    for (const [server, eventId] of [[laptop1, event1], [laptop2, event2]] as const) {
      const res = await server.get(`/events/${eventId}/checkins`);
      assert.equal(res.status, 200);
      // The scans that stand; the undone one too when asked for.
      assert.equal(res.body.count, 4);
      assert.equal((await server.get(`/events/${eventId}/checkins?include_undone=true`)).body.count, 5);
    }
  });

  it('changes nothing when the same file is imported again', async () => {
    const before1 = await counts(laptop1);
    const snapshot = await state(laptop1, event1);
    const again = await importFile(laptop1, file2);
    assert.equal(again.status, 200);
    assert.equal(again.body.checkins_added, 0);
    assert.ok(Object.values(again.body.created).every((n) => n === 0), JSON.stringify(again.body.created));
    assert.ok(Object.values(again.body.updated).every((n) => n === 0), JSON.stringify(again.body.updated));
    assert.deepEqual(again.body.double_admissions, []);
    assert.deepEqual(await counts(laptop1), before1);
    assert.deepEqual(await state(laptop1, event1), snapshot);
  });
});
