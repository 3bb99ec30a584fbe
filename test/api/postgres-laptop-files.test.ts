import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { after, before, describe, it } from 'node:test';
import { TEST_PG } from '../helpers/database';
import { createEvent, createGroup } from '../helpers/fixtures';
import { download, importFile, rec, stamp } from '../helpers/event-files';
import { TestServer } from '../helpers/server';
import { scan } from '../helpers/checkins';

const skip = TEST_PG ? false : 'a SQLite laptop beside a PostgreSQL server needs PostgreSQL (DOORLIST_TEST_PG)';

/**
 * An event with a value of every kind a file carries: decimals with and without cents,
 * booleans both ways, texts beyond ASCII, empty and missing values, timestamps with
 * milliseconds, an undone check-in.
 */
async function seedVaried(server: TestServer, eventId: number) {
  const db = server.db;
  const [paid] = await db('registration_types').insert(rec({ event_id: eventId, name: 'Ticket', description: 'Entrée — VIP', price: 12.5, door: true, online: false })).returning('id');
  const [free] = await db('registration_types').insert(rec({ event_id: eventId, name: 'Guest list', description: '', price: 0, door: false, online: true })).returning('id');
  await db('registration_types').insert(rec({ event_id: eventId, name: 'Unpriced', description: 'ß', price: null }));
  const [q] = await db('custom_questions').insert(rec({ event_id: eventId, question: 'Diet? 🍽', type: 'radio' })).returning('id');
  const [veg] = await db('question_choices').insert(rec({ question_id: q.id, answer: 'Végétarien', position: 0 })).returning('id');
  const [track] = await db('tracks').insert(rec({ event_id: eventId, name: 'Main', starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00' })).returning('id');
  const [session] = await db('sessions')
    .insert(rec({ event_id: eventId, track_id: track.id, name: 'Keynote', starts: '2026-12-01T18:00:00', ends: '2026-12-01T19:00:00', capacity: 100, access_control: true, hidden_session: false }))
    .returning('id');
  await db('session_tags').insert(rec({ session_id: session.id, tag: 'plenary' }));
  const guestIds: number[] = [];
  for (const [i, name] of ['Åsa', 'Grace', "O'Brien, \"Jr\""].entries()) {
    const [g] = await db('guests')
      .insert(
        rec({
          event_id: eventId,
          registration_type_id: i === 2 ? free.id : paid.id,
          first_name: name,
          last_name: 'Guest',
          email: `guest${i}@x.test`,
          company: i === 1 ? null : 'Acme; Ltd\nSecond line',
          barcode: `BC-${i + 1}`,
          nfc_tag: i === 0 ? 'NFC-1' : null,
          attention: i === 0,
        }),
      )
      .returning('id');
    guestIds.push(g.id);
  }
  await db('guest_answers').insert(rec({ guest_id: guestIds[0], question_id: q.id, choice_id: veg.id }));
  await db('session_registrations').insert(rec({ session_id: session.id, guest_id: guestIds[0] }));
  const scanned = stamp(-600);
  await db('checkins').insert(rec({ event_id: eventId, guest_id: guestIds[0], direction: 'in', scanned_at: scanned, station: 'door-1' }));
  await db('checkins').insert(rec({ event_id: eventId, guest_id: guestIds[1], direction: 'in', scanned_at: scanned, station: 'door-1', undone_at: stamp(-500) }));
  await db('guests').where({ id: guestIds[0] }).update({ checked_in_at: scanned });
  const [code] = await db('promotion_codes').insert(rec({ event_id: eventId, code: 'EARLY', discount_type: 'flat', discount_amount: 7.25, quantity: 5, available_only: true })).returning('id');
  await db('promotion_code_registration_types').insert(rec({ promotion_code_id: code.id, registration_type_id: paid.id }));
}

/**
 * A file's text without what only says where and when it was written: the header's station
 * and time, and so the trailer's checksum, which covers the header. Every record line stays.
 */
function contentOf(file: Buffer): string {
  const lines = zlib.gunzipSync(file).toString('utf8').trimEnd().split('\n');
  const header = JSON.parse(lines[0]);
  const trailer = JSON.parse(lines[lines.length - 1]);
  assert.equal(typeof header.exported_at, 'string');
  assert.equal(typeof trailer.trailer.sha256, 'string');
  delete header.station;
  delete header.exported_at;
  delete trailer.trailer.sha256;
  return [JSON.stringify(header), ...lines.slice(1, -1), JSON.stringify(trailer)].join('\n');
}

/** The guests CSV as rows of cells (text exactly as written), split into each database's own ids and the rest. */
async function guestsCsv(server: TestServer, eventId: number): Promise<{ ids: string[][]; cells: string[][] }> {
  const res = await fetch(`${server.baseUrl}/events/${eventId}/guests.csv`, { headers: { authorization: `Token ${server.adminToken}` } });
  assert.equal(res.status, 200);
  const rows: string[][] = parse(Buffer.from(await res.arrayBuffer()), { bom: true });
  const own = rows[0].map((header) => header === 'ID' || header === 'Registration type ID');
  return { ids: rows.slice(1).map((row) => row.filter((_, i) => own[i])), cells: rows.map((row) => row.filter((_, i) => !own[i])) };
}

describe('an event carried from a SQLite laptop to the PostgreSQL server and back', { skip }, () => {
  let dir: string;
  let laptop: TestServer;
  let central: TestServer;
  let other: TestServer;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-laptops-'));
    [laptop, central, other] = await Promise.all([
      TestServer.start({ db: path.join(dir, 'laptop.sqlite') }),
      TestServer.start(),
      TestServer.start({ db: path.join(dir, 'other-laptop.sqlite') }),
    ]);
  });
  after(async () => {
    await Promise.all([laptop?.stop(), central?.stop(), other?.stop()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('exports the same file and the same guests CSV on each database, whatever the ids', async () => {
    assert.equal(laptop.db.client.dialect, 'sqlite3');
    assert.equal(central.db.client.dialect, 'postgresql');
    const eventId = await createEvent(laptop, await createGroup(laptop), { name: 'Travelling Night' });
    await seedVaried(laptop, eventId);
    // Scans through the API, as a door makes them: the time the station sent and the laptop's own.
    assert.equal((await scan(laptop, eventId, { barcode: 'BC-2', station: 'door-2', scanned_at: '2026-12-01T18:02' })).status, 201);
    assert.equal((await scan(laptop, eventId, { barcode: 'BC-3', station: 'door-2' })).status, 201);
    const fromLaptop = await download(laptop, eventId);
    // Another event already on the server and on the other laptop: the travelling one gets other ids there.
    for (const server of [central, other]) await seedVaried(server, await createEvent(server, await createGroup(server), { name: 'Already here' }));

    const onCentral = await importFile(central, fromLaptop);
    assert.equal(onCentral.status, 201, JSON.stringify(onCentral.body));
    const fromCentral = await download(central, onCentral.body.event_id);
    assert.equal(contentOf(fromCentral), contentOf(fromLaptop));

    const onOther = await importFile(other, fromCentral);
    assert.equal(onOther.status, 201, JSON.stringify(onOther.body));
    assert.equal(contentOf(await download(other, onOther.body.event_id)), contentOf(fromLaptop));
    assert.match(zlib.gunzipSync(fromLaptop).toString('utf8'), /"scanned_at":"2026-12-01T18:02:00\.000Z"/);

    const csv = await guestsCsv(laptop, eventId);
    for (const [server, id] of [[central, onCentral.body.event_id], [other, onOther.body.event_id]] as const) {
      const moved = await guestsCsv(server, id);
      assert.notDeepEqual(moved.ids, csv.ids);
      assert.deepEqual(moved.cells, csv.cells);
    }

    // A scan made on the server travels to a fresh laptop and comes out in the same bytes.
    assert.equal((await scan(central, onCentral.body.event_id, { barcode: 'BC-1', direction: 'out', station: 'exit' })).status, 201);
    const scannedOnCentral = await download(central, onCentral.body.event_id);
    const third = await TestServer.start({ db: path.join(dir, 'third-laptop.sqlite') });
    try {
      const back = await importFile(third, scannedOnCentral);
      assert.equal(back.status, 201, JSON.stringify(back.body));
      assert.equal(contentOf(await download(third, back.body.event_id)), contentOf(scannedOnCentral));
    } finally {
      await third.stop();
    }
  });
});
