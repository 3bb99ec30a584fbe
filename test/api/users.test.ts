import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createEvent, createGroup, createUser } from '../helpers/fixtures';
import { ADMIN, TestServer } from '../helpers/server';

const signIn = (server: TestServer, username: string, password: string) => server.post('/apps/api/auth', { username, password }, { token: null });

describe('users of a group', () => {
  let server: TestServer;
  let groupId: number;
  before(async () => {
    server = await TestServer.start();
    groupId = await createGroup(server, { name: 'Crew' });
  });
  after(() => server.stop());

  describe('POST /groups/:group_id/users', () => {
    it('answers 201 {id, username, role} and the user signs in with the auth call', async () => {
      const res = await server.post(`/groups/${groupId}/users`, { username: 'ada', password: 'correct horse', role: 'door' });
      assert.equal(res.status, 201);
      assert.deepEqual(res.body, { id: res.body.id, username: 'ada', role: 'door' });
      const login = await signIn(server, 'ada', 'correct horse');
      assert.equal(login.status, 200);
      const stored = await server.db('users').where({ id: res.body.id }).first();
      assert.match(stored.password_hash, /^scrypt\$/);
    });

    it('makes a manager unless a role is given', async () => {
      const res = await server.post(`/groups/${groupId}/users`, { username: 'grace', password: 'correct horse' });
      assert.deepEqual(res.body, { id: res.body.id, username: 'grace', role: 'manager' });
    });

    it("answers the spec's 400 field errors: taken username, short password, unknown role, missing fields", async () => {
      const taken = await server.post(`/groups/${groupId}/users`, { username: ADMIN.username, password: 'correct horse' });
      assert.deepEqual([taken.status, taken.body], [400, { username: [MSG.usernameTaken] }]);
      const short = await server.post(`/groups/${groupId}/users`, { username: 'shorty', password: 'short', role: 'boss' });
      assert.deepEqual([short.status, short.body], [400, { password: [MSG.passwordTooShort(8)], role: [MSG.invalidRole] }]);
      const empty = await server.post(`/groups/${groupId}/users`, {});
      assert.deepEqual(empty.body, { username: [MSG.required], password: [MSG.required] });
    });

    it('answers 404 for a group out of scope, exactly as for an absent one', async () => {
      const other = await createGroup(server, { name: 'Not theirs' });
      const manager = await createUser(server, groupId, 'manager');
      const res = await server.post(`/groups/${other}/users`, { username: 'intruder', password: 'correct horse' }, { token: manager.token });
      const absent = await server.post('/groups/999999/users', { username: 'intruder', password: 'correct horse' }, { token: manager.token });
      assert.deepEqual([res.status, res.body], [404, { detail: MSG.groupNotFound }]);
      assert.deepEqual([absent.status, absent.body], [404, { detail: MSG.groupNotFound }]);
    });
  });

  describe('GET /groups/:group_id/users', () => {
    it('lists the users with their roles and no secret', async () => {
      const own = await createGroup(server, { name: 'Listed' });
      await createUser(server, own, 'door', 'lister-door');
      await createUser(server, own, 'manager', 'lister-manager');
      const res = await server.get(`/groups/${own}/users`);
      assert.equal(res.status, 200);
      assert.equal(res.body.count, 2);
      assert.deepEqual(
        res.body.results.map((u: Record<string, unknown>) => [u.username, u.role, u.group_id]),
        [['lister-door', 'door', own], ['lister-manager', 'manager', own]],
      );
      assert.deepEqual(Object.keys(res.body.results[0]).sort(), ['created', 'group_id', 'id', 'modified', 'role', 'username']);
      assert.ok(!JSON.stringify(res.body).includes('scrypt'));
    });
  });

  describe('PUT /groups/:group_id/users/:user_id', () => {
    it('changes the role, which applies at once to the next request', async () => {
      const user = await createUser(server, groupId, 'manager');
      const eventId = await createEvent(server, groupId);
      assert.equal((await server.put(`/events/${eventId}`, { name: 'Before' }, { token: user.token })).status, 200);
      const res = await server.put(`/groups/${groupId}/users/${user.id}`, { role: 'door' });
      assert.deepEqual([res.status, res.body], [200, { id: user.id, username: user.username, role: 'door' }]);
      const after = await server.put(`/events/${eventId}`, { name: 'After' }, { token: user.token });
      assert.deepEqual([after.status, after.body], [403, { detail: MSG.roleNotAllowed }]);
    });

    it("changes the password: the old one no longer signs in and the user's tokens stop at once", async () => {
      const user = await createUser(server, groupId, 'door');
      const res = await server.put(`/groups/${groupId}/users/${user.id}`, { password: 'a brand new one' });
      assert.equal(res.status, 200);
      assert.equal((await server.get('/events', { token: user.token })).status, 401);
      assert.deepEqual((await signIn(server, user.username, user.password)).body, {});
      assert.equal((await signIn(server, user.username, 'a brand new one')).status, 200);
    });

    it('a manager changing their own password keeps this session and ends their others', async () => {
      const user = await createUser(server, groupId, 'manager');
      const other = (await signIn(server, user.username, user.password)).body.token;
      const res = await server.put(`/groups/${groupId}/users/${user.id}`, { password: 'my own new one' }, { token: user.token });
      assert.equal(res.status, 200);
      assert.equal((await server.get('/events', { token: user.token })).status, 200);
      assert.equal((await server.get('/events', { token: other })).status, 401);
    });

    it('answers 404 "User not found." for a user of another group, an administrator or junk', async () => {
      const elsewhere = await createGroup(server, { name: 'Elsewhere' });
      const stranger = await createUser(server, elsewhere, 'door');
      const admin = await server.db('users').where({ username: ADMIN.username }).first('id');
      for (const id of [stranger.id, admin.id, 'abc', '999999']) {
        const res = await server.put(`/groups/${groupId}/users/${id}`, { password: 'taken over!' });
        assert.deepEqual([res.status, res.body], [404, { detail: MSG.userNotFound }], String(id));
      }
    });
  });

  describe('DELETE /groups/:group_id/users/:user_id', () => {
    it("answers 204 and the user's tokens stop working at once", async () => {
      const user = await createUser(server, groupId, 'door');
      assert.equal((await server.get('/events', { token: user.token })).status, 200);
      const res = await server.delete(`/groups/${groupId}/users/${user.id}`);
      assert.deepEqual([res.status, res.body], [204, '']);
      const after = await server.get('/events', { token: user.token });
      assert.deepEqual([after.status, after.body], [401, { detail: MSG.sessionExpired }]);
      assert.equal((await server.delete(`/groups/${groupId}/users/${user.id}`)).status, 404);
      assert.equal(await server.db('tokens').where({ user_id: user.id }).first(), undefined);
    });
  });

  describe('what a user sees', () => {
    it('exactly what a key of their group sees: the group and its sub-groups, nothing else', async () => {
      const own = await createGroup(server, { name: 'Own' });
      const sub = await createGroup(server, { name: 'Own sub', parent_id: own });
      const other = await createGroup(server, { name: 'Other' });
      const ownEvent = await createEvent(server, sub);
      const otherEvent = await createEvent(server, other);
      const user = await createUser(server, own, 'door');
      const key = (await server.post(`/groups/${own}/api_keys`, { name: 'door', role: 'door' })).body.key;
      for (const token of [user.token, key]) {
        assert.deepEqual((await server.get('/groups', { token })).body.results.map((g: { id: number }) => g.id), [own, sub]);
        assert.deepEqual((await server.get('/events', { token })).body.results.map((e: { id: number }) => e.id), [ownEvent]);
        assert.equal((await server.get(`/events/${otherEvent}`, { token })).status, 404);
      }
    });

    it('a manager user manages the keys and users of their group; a door user cannot', async () => {
      const own = await createGroup(server, { name: 'Self-run' });
      const manager = await createUser(server, own, 'manager');
      const key = await server.post(`/groups/${own}/api_keys`, { name: 'Door 2', role: 'door' }, { token: manager.token });
      assert.deepEqual([key.status, key.body.role], [201, 'door']);
      const door = await server.post(`/groups/${own}/users`, { username: 'self-run-door', password: 'correct horse', role: 'door' }, { token: manager.token });
      assert.equal(door.status, 201);
      const doorToken = (await signIn(server, 'self-run-door', 'correct horse')).body.token;
      const refused = await server.post(`/groups/${own}/users`, { username: 'escalate', password: 'correct horse', role: 'manager' }, { token: doorToken });
      assert.deepEqual([refused.status, refused.body], [403, { detail: MSG.roleNotAllowed }]);
      assert.equal((await server.put(`/groups/${own}/users/${door.body.id}`, { role: 'manager' }, { token: doorToken })).status, 403);
      assert.equal((await server.delete(`/groups/${own}/api_keys/${key.body.id}`, { token: manager.token })).status, 204);
    });
  });
});
