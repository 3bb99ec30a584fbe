import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { recordConflicts } from '../../db/repositories/sync';
import { SyncConflict, SyncDoubleAdmission, SyncStatus } from '../../server/schemas/sync';
import { QUICK_SYNC, TestServer } from '../helpers/server';
import { createApiKey, createEvent, createGroup, createRoleKey } from '../helpers/fixtures';
import { UpstreamProxy } from '../helpers/upstream-proxy';
import { eventually } from '../helpers/eventually';

const SYNC_PUSH = /^\/api\/v1\/events\/\d+\/sync\/changes/;

describe("A sync's double admissions and conflicts: only real ones kept, paged for the door", () => {
  let central: TestServer;
  let laptop: TestServer;
  let proxy: UpstreamProxy;
  let eventId: number;
  let groupId: number;
  const status = async (token?: string) => (await laptop.get(`/events/${eventId}/sync`, token === undefined ? {} : { token })).body;

  before(async () => {
    [central, laptop] = await Promise.all([TestServer.start(), TestServer.start(QUICK_SYNC)]);
    const centralGroup = await createGroup(central, { name: 'Findings box office' });
    const remote = await createEvent(central, centralGroup, { name: 'Findings gala' });
    const rt = await central.post(`/events/${remote}/registration_types`, { type: 'ticket', name: 'Entry', description: 'Door' });
    for (const first of ['Ada', 'Bob']) {
      const res = await central.post(`/events/${remote}/guests`, { registration_type: rt.body.id, first_name: first, last_name: 'Guest', email: `${first}@x.test`, barcode: `FIND-${first}` });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    proxy = await UpstreamProxy.start(central.baseUrl);
    const followed = await laptop.post('/sync', { url: proxy.baseUrl, key: await createApiKey(central, centralGroup), event_id: remote });
    assert.equal(followed.status, 201, JSON.stringify(followed.body));
    eventId = followed.body.event_id;
    groupId = (await laptop.get(`/events/${eventId}`)).body.group_id;
    await eventually('a first cycle', async () => ((s) => (s.state === 'ok' && s.last_push_at ? s : undefined))(await status()));
  });
  after(async () => {
    await proxy.close();
    await Promise.all([central.stop(), laptop.stop()]);
  });

  it('keeps a double admission of check-ins that exist here, and drops the ones a push answer invents (not listed, not counted)', async () => {
    // Ada in, out, in again here: three real check-ins of hers.
    const scans = [];
    for (const direction of ['in', 'out', 'in']) {
      const res = await laptop.post(`/events/${eventId}/checkins`, { barcode: 'FIND-Ada', direction, station: 'side door' });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      scans.push(res.body);
    }
    const ada = (await laptop.db('guests').where({ event_id: eventId, first_name: 'Ada' }).first()).uid;
    const bob = (await laptop.db('guests').where({ event_id: eventId, first_name: 'Bob' }).first()).uid;
    const checkin = (uid: string) => ({ uid, station: 'Door X', scanned_at: '2026-12-01T20:00:00Z' });
    const claimed = [
      { guest_uid: ada, checkins: [checkin(scans[0].uid), checkin(scans[2].uid)] },
      // A guest that is not here, check-ins that are not here, and Ada's scans claimed for Bob.
      { guest_uid: randomUUID(), checkins: [checkin(randomUUID()), checkin(randomUUID())] },
      { guest_uid: ada, checkins: [checkin(scans[0].uid), checkin(randomUUID())] },
      { guest_uid: bob, checkins: [checkin(scans[0].uid), checkin(scans[2].uid)] },
      { guest_uid: 'x'.repeat(64), checkins: [checkin('y'.repeat(64)), checkin('z'.repeat(64))] },
    ];
    let answered = 0;
    proxy.override = (req, res) => {
      if (req.method !== 'POST' || !SYNC_PUSH.test(req.url ?? '')) return false;
      req.resume();
      answered++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ conflicts: [], double_admissions: claimed }));
      return true;
    };
    const s = await eventually('the push answered', async () => ((x) => (answered > 0 && x.pending === 0 && x.state === 'ok' ? x : undefined))(await status()));
    proxy.override = undefined;
    assert.equal(s.double_admissions_count, 1);
    assert.deepEqual(
      s.double_admissions.map((d: any) => [d.guest_uid, d.checkins.map((c: any) => c.uid).sort()]),
      [[ada, [scans[0].uid, scans[2].uid].sort()]],
    );
    assert.equal(await laptop.db('sync_double_admissions').where({ event_id: eventId }).count({ n: '*' }).first().then((r: any) => Number(r.n)), 1);
  });

  it('GET /events/:id/sync carries the counts and the latest 5 of 1,000 conflicts, newest first; the door reads the same', async () => {
    const found = Array.from({ length: 1000 }, (_, i) => ({ table: 'guests', uid: `conflict-${String(i).padStart(4, '0')}`, kind: 'barcode', value: 'x'.repeat(255), resolution: 'kept the barcode here' }));
    await recordConflicts(laptop.db, eventId, found);
    const door = await createRoleKey(laptop, groupId, 'door');
    for (const token of [undefined, door]) {
      const s = await status(token);
      assert.equal(SyncStatus.safeParse(s).success, true);
      assert.equal(s.conflicts_count, 1000);
      assert.deepEqual(
        s.conflicts.map((c: any) => c.uid),
        ['conflict-0999', 'conflict-0998', 'conflict-0997', 'conflict-0996', 'conflict-0995'],
      );
      assert.equal(s.double_admissions_count, 1);
      assert.equal(s.double_admissions.length, 1);
      assert.ok(JSON.stringify(s).length < 10_000, 'a door poll stays small');
    }
  });

  it('GET /events/:id/sync/conflicts pages them all, newest first, in the list envelope', async () => {
    const first = await laptop.get(`/events/${eventId}/sync/conflicts?page_size=400`);
    assert.equal(first.status, 200);
    assert.equal(first.body.count, 1000);
    assert.equal(first.body.previous, null);
    assert.match(first.body.next, /\/sync\/conflicts\?page_size=400&page=2$/);
    assert.equal(first.body.results.length, 400);
    assert.equal(first.body.results[0].uid, 'conflict-0999');
    assert.ok(first.body.results.every((c: unknown) => SyncConflict.safeParse(c).success));
    const last = await laptop.get(`/events/${eventId}/sync/conflicts?page_size=400&page=3`);
    assert.deepEqual([last.body.results.length, last.body.results.at(-1).uid, last.body.next], [200, 'conflict-0000', null]);
    const bad = await laptop.get(`/events/${eventId}/sync/conflicts?page=0`);
    assert.deepEqual([bad.status, bad.body], [400, { page: [MSG.invalidPage] }]);
  });

  it('GET /events/:id/sync/double_admissions pages the kept ones; another group answers 404', async () => {
    const res = await laptop.get(`/events/${eventId}/sync/double_admissions`);
    assert.equal(res.status, 200);
    assert.deepEqual([res.body.count, res.body.next, res.body.previous, res.body.results.length], [1, null, null, 1]);
    assert.equal(SyncDoubleAdmission.safeParse(res.body.results[0]).success, true);
    const other = await createRoleKey(laptop, await createGroup(laptop, { name: 'Another organiser' }), 'door');
    for (const list of ['double_admissions', 'conflicts']) {
      const refused = await laptop.get(`/events/${eventId}/sync/${list}`, { token: other });
      assert.deepEqual([refused.status, refused.body], [404, { detail: MSG.syncNotFound }]);
    }
  });
});
