import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { scan, seedGuests, seedRegistrationType } from '../helpers/checkins';
import { createEvent, createGroup, createRoleKey, createUser } from '../helpers/fixtures';
import { documentedOperations, type Operation } from '../helpers/openapi';
import { TestServer } from '../helpers/server';

// The writes a door may make (DESIGN "Identity, scope and secrets"): everything else is refused.
const DOOR_WRITES = new Set([
  'POST /events/{event_id}/checkins',
  'DELETE /events/{event_id}/checkins/{checkin_id}',
  'POST /events/{event_id}/guests',
  'POST /events/import',
  // A door key's follower pushes its scans (DESIGN "Following a central Doorlist").
  'POST /events/{event_id}/sync/changes',
  // ...and tells its upstream who it is, to learn the venue (issue 47).
  'POST /events/{event_id}/sync/venue',
  // ...has its LAN certificate signed by the upstream's authority, one for the venue's phones...
  'POST /events/{event_id}/sync/certificate',
  // ...and a door screen takes a pass to the venue's other laptops (issue 47).
  'POST /events/{event_id}/sync/door_pass',
  'POST /apps/api/auth/logout',
  // Printing badges is the door's work (issue 39); a long selection is POSTed.
  'POST /events/{event_id}/badges.pdf',
]);
// Managed only by signed-in managers: a manager's API key is refused these too.
const SIGNED_IN_ONLY = [
  'POST /groups/{group_id}/api_keys',
  'GET /groups/{group_id}/api_keys',
  'DELETE /groups/{group_id}/api_keys/{key_id}',
  'POST /groups/{group_id}/users',
  'GET /groups/{group_id}/users',
  'PUT /groups/{group_id}/users/{user_id}',
  'DELETE /groups/{group_id}/users/{user_id}',
  'PUT /groups/{group_id}',
];

describe('roles: door keys and door users', () => {
  let server: TestServer;
  let groupId: number;
  let eventId: number;
  let otherEventId: number;
  let guestIds: number[];
  let doorKey: string;
  let doorUser: string;
  let managerKey: string;
  let operations: Operation[];

  before(async () => {
    server = await TestServer.start();
    groupId = await createGroup(server, { name: 'Door crew' });
    eventId = await createEvent(server, groupId);
    otherEventId = await createEvent(server, await createGroup(server, { name: 'Elsewhere' }));
    const typeId = await seedRegistrationType(server, eventId);
    guestIds = await seedGuests(server, eventId, typeId, [{ barcode: 'R1' }, { barcode: 'R2' }, { barcode: 'R3' }, { barcode: 'R4' }]);
    doorKey = await createRoleKey(server, groupId, 'door');
    doorUser = (await createUser(server, groupId, 'door')).token;
    managerKey = await createRoleKey(server, groupId, 'manager');
    operations = await documentedOperations(server);
  });
  after(() => server.stop());

  /** A path of the door's own scope: its group, its event, any id below. */
  const inScope = (path: string) => path.replace('{group_id}', String(groupId)).replace('{event_id}', String(eventId)).replace(/\{\w+\}/g, '1');

  it('answers 403 "Your role does not allow this." to every other write, with a door key and with a door user', async () => {
    const writes = operations.filter((op) => op.method !== 'GET' && !op.public && !DOOR_WRITES.has(`${op.method} ${op.path}`));
    assert.ok(writes.length >= 20, `only ${writes.length} write routes documented`);
    for (const token of [doorKey, doorUser]) {
      for (const op of writes) {
        const res = await server.request(op.method, inScope(op.path), { token, body: {} });
        assert.deepEqual([res.status, res.body], [403, { detail: MSG.roleNotAllowed }], `${op.method} ${op.path}`);
      }
    }
  });

  it('refuses the managers-only reads (keys, users, promotion codes) with 403 too', async () => {
    for (const token of [doorKey, doorUser]) {
      for (const path of ['/groups/{group_id}/api_keys', '/groups/{group_id}/users', '/events/{event_id}/promotion_codes', '/events/{event_id}/promotion_codes/{promotion_code_id}']) {
        const res = await server.get(inScope(path), { token });
        assert.deepEqual([res.status, res.body], [403, { detail: MSG.roleNotAllowed }], path);
      }
    }
  });

  it('checks scope before role: what is out of scope answers 404 exactly as if absent', async () => {
    for (const token of [doorKey, doorUser]) {
      const other = await server.put(`/events/${otherEventId}`, { name: 'x' }, { token });
      const absent = await server.put('/events/999999', { name: 'x' }, { token });
      assert.deepEqual([other.status, other.body], [404, { detail: MSG.eventNotFound }]);
      assert.deepEqual([other.status, other.body], [absent.status, absent.body]);
      const own = await server.put(`/events/${eventId}`, { name: 'x' }, { token });
      assert.deepEqual([own.status, own.body], [403, { detail: MSG.roleNotAllowed }]);
      assert.equal((await server.post(`/events/${otherEventId}/checkins`, { barcode: 'R1' }, { token })).status, 404);
    }
  });

  it('lets a door read events, guests, sessions, registration types, stats and check-ins in scope', async () => {
    for (const token of [doorKey, doorUser]) {
      for (const path of ['/events', `/events/${eventId}`, `/events/${eventId}/guests`, `/events/${eventId}/guests/${guestIds[0]}`, `/events/${eventId}/sessions`, `/events/${eventId}/registration_types`, `/events/${eventId}/stats`, `/events/${eventId}/checkins`, '/groups', `/groups/${groupId}`]) {
        assert.equal((await server.get(path, { token })).status, 200, path);
      }
    }
  });

  it('lets a door check guests in and out, and undo its own scans but not another door\'s', async () => {
    const inByKey = await scan(server, eventId, { barcode: 'R1' }, doorKey);
    assert.equal(inByKey.status, 201);
    const outByKey = await scan(server, eventId, { barcode: 'R1', direction: 'out' }, doorKey);
    assert.deepEqual([outByKey.status, outByKey.body.status], [201, 'checked_out']);
    const inByUser = await scan(server, eventId, { barcode: 'R2' }, doorUser);
    assert.equal(inByUser.status, 201);

    const notOwn = await server.delete(`/events/${eventId}/checkins/${inByUser.body.id}`, { token: doorKey });
    assert.deepEqual([notOwn.status, notOwn.body], [403, { detail: MSG.roleNotAllowed }]);
    assert.equal((await server.delete(`/events/${eventId}/checkins/${inByUser.body.id}`, { token: doorUser })).status, 204);
    assert.equal((await server.delete(`/events/${eventId}/checkins/${outByKey.body.id}`, { token: doorKey })).status, 204);

    const absent = await server.delete(`/events/${eventId}/checkins/999999`, { token: doorKey });
    assert.deepEqual([absent.status, absent.body], [404, { detail: MSG.checkinNotFound }]);
    const byManager = await scan(server, eventId, { barcode: 'R3' }, managerKey);
    assert.equal((await server.delete(`/events/${eventId}/checkins/${byManager.body.id}`, { token: doorUser })).status, 403);
    assert.equal((await server.delete(`/events/${eventId}/checkins/${inByKey.body.id}`, { token: managerKey })).status, 204);
  });

  it('lets a door add a walk-in guest, but not change or remove one', async () => {
    const typeId = (await server.get(`/events/${eventId}/registration_types`, { token: doorKey })).body.results[0].id;
    const walkIn = await server.post(`/events/${eventId}/guests`, { registration_type: typeId, first_name: 'Walk', last_name: 'In', email: '', barcode: 'WALK1' }, { token: doorUser });
    assert.equal(walkIn.status, 201, JSON.stringify(walkIn.body));
    const edit = await server.put(`/events/${eventId}/guests/${walkIn.body.id}`, { first_name: 'Changed' }, { token: doorUser });
    assert.deepEqual([edit.status, edit.body], [403, { detail: MSG.roleNotAllowed }]);
  });

  it("lets a door export its event's file and import it", async () => {
    const res = await fetch(`${server.baseUrl}/events/${eventId}/export`, { headers: { authorization: `Token ${doorKey}` } });
    assert.equal(res.status, 200);
    const file = Buffer.from(await res.arrayBuffer());
    const imported = await server.request('POST', '/events/import', { token: doorUser, rawBody: file, headers: { 'content-type': 'application/gzip' } });
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
  });

  it('keeps a manager key working as before, except for keys, users and the group itself', async () => {
    assert.equal((await server.put(`/events/${eventId}`, { name: 'Renamed by key' }, { token: managerKey })).status, 200);
    for (const route of SIGNED_IN_ONLY) {
      const [method, path] = route.split(' ');
      const body = method === 'GET' ? undefined : { name: 'x', username: 'x', password: 'long enough', role: 'manager' };
      const res = await server.request(method, inScope(path), { token: managerKey, body });
      assert.deepEqual([res.status, res.body], [403, { detail: MSG.keysCannotManage }], route);
    }
  });

  it('documents every route that is signed-in only (the table above is complete)', () => {
    const documented = operations.filter((op) => /\/(api_keys|users)\b/.test(op.path) && !op.public).map((op) => `${op.method} ${op.path}`);
    for (const route of documented) assert.ok(SIGNED_IN_ONLY.includes(route), route);
  });
});

describe('GET /me', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  it('tells a screen who is asking: kind, role, group and whether it manages keys and users', async () => {
    const groupId = await createGroup(server, { name: 'Who' });
    const doorKey = await createRoleKey(server, groupId, 'door');
    const managerKey = await createRoleKey(server, groupId, 'manager');
    const doorUser = await createUser(server, groupId, 'door');
    const managerUser = await createUser(server, groupId, 'manager');
    const me = async (token?: string) => (await server.get('/me', { token })).body;
    assert.deepEqual(await me(), { kind: 'user', role: 'manager', is_admin: true, group_id: null, manages_access: true });
    assert.deepEqual(await me(managerUser.token), { kind: 'user', role: 'manager', is_admin: false, group_id: groupId, manages_access: true });
    assert.deepEqual(await me(doorUser.token), { kind: 'user', role: 'door', is_admin: false, group_id: groupId, manages_access: false });
    assert.deepEqual(await me(managerKey), { kind: 'key', role: 'manager', is_admin: false, group_id: groupId, manages_access: false });
    assert.deepEqual(await me(doorKey), { kind: 'key', role: 'door', is_admin: false, group_id: groupId, manages_access: false });
    assert.equal((await server.get('/me', { token: null })).status, 401);
  });
});
