import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createEvent, createGroup, createRoleKey } from '../helpers/fixtures';
import { scan, seedGuests, seedRegistrationType } from '../helpers/checkins';
import { TestServer } from '../helpers/server';

type StationRow = { station: string; health: string; scans_recent: number };

/**
 * A door station renamed in its settings (issue 44): its history follows it to the new name in
 * the supervisor view, through a server restart, and only its own caller can rename it.
 */
describe('GET /events/:event_id/stats?station=...&previous_station=... (a rename)', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  const apiNow = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString().slice(0, 19);

  async function beat(eventId: number, token: string, station: string, previous?: string) {
    const query = new URLSearchParams({ station, ...(previous ? { previous_station: previous } : {}) });
    const res = await server.get(`/events/${eventId}/stats?${query}`, { token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }

  async function admit(eventId: number, token: string, barcode: string, station: string, scanned_at = apiNow()) {
    const res = await server.post(`/events/${eventId}/checkins`, { barcode, station, scanned_at }, { token });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }

  async function supervisor(eventId: number) {
    const res = await server.get(`/events/${eventId}/stats?supervisor=true`);
    assert.equal(res.status, 200);
    return res.body;
  }

  const rows = (stations: StationRow[]) => stations.map((s) => [s.station, s.health, s.scans_recent]);

  /** An event with guests G1..G6 and a door key. */
  async function night() {
    const groupId = await createGroup(server);
    const eventId = await createEvent(server, groupId);
    const type = await seedRegistrationType(server, eventId);
    await seedGuests(server, eventId, type, [1, 2, 3, 4, 5, 6].map((n) => ({ barcode: `G${n}` })));
    return { groupId, eventId, door: await createRoleKey(server, groupId, 'door', 'door phone') };
  }

  it('keeps the history under the new name after a restart, the old name nowhere, its scans as they were made', async () => {
    const { eventId, door } = await night();
    await beat(eventId, door, 'Door A');
    await admit(eventId, door, 'G1', 'Door A');
    await admit(eventId, door, 'G2', 'Door A');
    await beat(eventId, door, 'Front', 'Door A');
    await admit(eventId, door, 'G3', 'Front');
    assert.deepEqual(rows((await supervisor(eventId)).supervisor.stations), [['Front', 'online', 3]]);

    await server.restart();
    const after = await supervisor(eventId);
    // Nothing heard since the restart: Front is online on its last scan, and Door A is no row.
    assert.deepEqual(rows(after.supervisor.stations), [['Front', 'online', 3]]);
    assert.deepEqual(
      after.supervisor.latest.map((c: { station: string }) => c.station),
      ['Front', 'Front', 'Front'],
    );
    // The door's own figures and the scans keep the name each scan was made under.
    assert.deepEqual(
      after.stations.map((s: { station: string; checked_in: number }) => [s.station, s.checked_in]),
      [
        ['Door A', 2],
        ['Front', 1],
      ],
    );
    const scans = await server.get(`/events/${eventId}/checkins`);
    assert.deepEqual(scans.body.results.map((c: { station: string }) => c.station).sort(), ['Door A', 'Door A', 'Front']);
  });

  it('takes a rename the restarted server has not heard from the caller that made the old name\'s scans, from no other', async () => {
    const { groupId, eventId, door } = await night();
    const other = await createRoleKey(server, groupId, 'door', 'another phone');
    await admit(eventId, door, 'G1', 'Side');
    await admit(eventId, other, 'G2', 'Hall');
    await server.restart();
    // Renamed while the server was down: the first heartbeat after it names the old name.
    await beat(eventId, door, 'Side gate', 'Side');
    // Hall's scans are another key's: this key cannot fold them into its station.
    await beat(eventId, door, 'Mine', 'Hall');
    assert.deepEqual(rows((await supervisor(eventId)).supervisor.stations), [
      ['Hall', 'online', 1],
      ['Mine', 'online', 0],
      ['Side gate', 'online', 1],
    ]);
  });

  it('follows two renames to the latest name, and a name taken back is a station of its own again', async () => {
    const { eventId, door } = await night();
    await beat(eventId, door, 'One');
    await admit(eventId, door, 'G1', 'One');
    await beat(eventId, door, 'Two', 'One');
    await admit(eventId, door, 'G2', 'Two');
    // Sent twice (the first answer lost): the same rename, nothing more.
    await beat(eventId, door, 'Three', 'Two');
    await beat(eventId, door, 'Three', 'Two');
    await server.restart();
    assert.deepEqual(rows((await supervisor(eventId)).supervisor.stations), [['Three', 'online', 2]]);

    // Three has no scans of its own, but its old names' scans are this key's: it may rename it.
    await beat(eventId, door, 'One', 'Three');
    await admit(eventId, door, 'G3', 'One');
    await server.restart();
    // One's own scans are its own again; Two's, renamed away from, follow to One too.
    assert.deepEqual(rows((await supervisor(eventId)).supervisor.stations), [['One', 'online', 3]]);
  });

  it('lists a renamed station that closed apart, as left, never as a door offline', async () => {
    const { eventId, door } = await night();
    await beat(eventId, door, 'Bar');
    await admit(eventId, door, 'G1', 'Bar', apiNow(-30 * 60_000));
    await beat(eventId, door, 'Cloakroom', 'Bar');
    await server.restart();
    await beat(eventId, door, 'North');
    const { stations } = (await supervisor(eventId)).supervisor;
    assert.deepEqual(rows(stations), [
      ['North', 'online', 0],
      ['Cloakroom', 'left', 0],
    ]);
  });

  it('stores no rename of a name without scans, and shows no row for the old name', async () => {
    const { eventId, door } = await night();
    await beat(eventId, door, 'Door');
    await beat(eventId, door, 'Entrance', 'Door');
    assert.deepEqual(rows((await supervisor(eventId)).supervisor.stations), [['Entrance', 'online', 0]]);
    const stored = await server.db('station_renames').where({ event_id: eventId }).count({ n: '*' });
    assert.equal(Number(stored[0].n), 0);
  });
});
