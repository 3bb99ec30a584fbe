import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createApiKey, createEvent, createGroup, twoOrganisers } from '../helpers/fixtures';
import { TestServer } from '../helpers/server';

describe('API keys', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  describe('POST /groups/:group_id/api_keys', () => {
    it('answers 201 {id, name, role, key} and stores only a hash of the key', async () => {
      const groupId = await createGroup(server);
      const res = await server.post(`/groups/${groupId}/api_keys`, { name: 'Door 1' });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), ['id', 'key', 'name', 'role']);
      assert.equal(res.body.name, 'Door 1');
      assert.equal(res.body.role, 'manager');
      const row = await server.db('api_keys').where({ id: res.body.id }).first();
      assert.notEqual(row.key_hash, res.body.key);
      assert.ok(!JSON.stringify(row).includes(res.body.key));
    });

    it('answers 400 without a name and 404 for an unknown group', async () => {
      const groupId = await createGroup(server);
      assert.deepEqual((await server.post(`/groups/${groupId}/api_keys`, {})).body, { name: [MSG.required] });
      const missing = await server.post('/groups/999999/api_keys', { name: 'x' });
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { detail: MSG.groupNotFound });
    });
  });

  describe('GET /groups/:group_id/api_keys', () => {
    it('lists keys without their secrets', async () => {
      const groupId = await createGroup(server);
      const key = await createApiKey(server, groupId, 'Listed');
      const res = await server.get(`/groups/${groupId}/api_keys`);
      assert.equal(res.status, 200);
      assert.equal(res.body.count, 1);
      assert.equal(res.body.results[0].name, 'Listed');
      assert.ok(!JSON.stringify(res.body).includes(key));
      assert.deepEqual(Object.keys(res.body.results[0]).sort(), ['created', 'group_id', 'id', 'name', 'prefix', 'role']);
    });
  });

  describe('DELETE /groups/:group_id/api_keys/:key_id', () => {
    it('answers 204 and the key stops working at once', async () => {
      const groupId = await createGroup(server);
      const created = await server.post(`/groups/${groupId}/api_keys`, { name: 'Revoked' });
      const key = created.body.key;
      assert.equal((await server.get('/events', { token: key })).status, 200);
      const res = await server.delete(`/groups/${groupId}/api_keys/${created.body.id}`);
      assert.equal(res.status, 204);
      assert.equal(res.body, '');
      const after = await server.get('/events', { token: key });
      assert.equal(after.status, 401);
      assert.deepEqual(after.body, { detail: MSG.sessionExpired });
      assert.equal((await server.delete(`/groups/${groupId}/api_keys/${created.body.id}`)).status, 404);
    });

    it('answers {detail: "API key not found."} alike for an unknown key id and one that is not a plain number', async () => {
      const groupId = await createGroup(server);
      const created = await server.post(`/groups/${groupId}/api_keys`, { name: 'Kept' });
      for (const junk of ['987654', 'abc', `${created.body.id}.0`, '99999999999999999999']) {
        const res = await server.delete(`/groups/${groupId}/api_keys/${junk}`);
        assert.equal(res.status, 404, junk);
        assert.deepEqual(res.body, { detail: MSG.apiKeyNotFound }, junk);
      }
      assert.equal((await server.get('/events', { token: created.body.key })).status, 200);
    });
  });
});

describe('scope between organisers', () => {
  let server: TestServer;
  let org: Awaited<ReturnType<typeof twoOrganisers>>;
  before(async () => {
    server = await TestServer.start();
    org = await twoOrganisers(server);
  });
  after(() => server.stop());

  it('a key sees its own group and events, and not the other organiser', async () => {
    const groups = await server.get('/groups', { token: org.a.key });
    assert.deepEqual(groups.body.results.map((g: { id: number }) => g.id), [org.a.groupId]);
    const events = await server.get('/events', { token: org.a.key });
    assert.deepEqual(events.body.results.map((e: { id: number }) => e.id), [org.a.eventId]);
    assert.equal((await server.get(`/events?group_id=${org.b.groupId}`, { token: org.a.key })).body.count, 0);
  });

  it("answers another organiser's group and event exactly as if they did not exist", async () => {
    const key = org.a.key;
    const absentGroup = await server.get('/groups/999999', { token: key });
    const otherGroup = await server.get(`/groups/${org.b.groupId}`, { token: key });
    assert.deepEqual([otherGroup.status, otherGroup.body], [absentGroup.status, absentGroup.body]);
    const absentEvent = await server.get('/events/999999', { token: key });
    const otherEvent = await server.get(`/events/${org.b.eventId}`, { token: key });
    assert.deepEqual([otherEvent.status, otherEvent.body], [404, { detail: MSG.eventNotFound }]);
    assert.deepEqual([otherEvent.status, otherEvent.body], [absentEvent.status, absentEvent.body]);
    assert.deepEqual((await server.put(`/events/${org.b.eventId}`, { name: 'x' }, { token: key })).body, { detail: MSG.eventNotFound });
    assert.equal((await server.post(`/events/${org.b.eventId}/duplicate_event`, {}, { token: key })).status, 404);
    assert.equal((await server.put(`/groups/${org.b.groupId}`, { name: 'x' }, { token: key })).status, 404);
    assert.equal((await server.get(`/groups/${org.b.groupId}/api_keys`, { token: key })).status, 404);
    assert.equal((await server.post(`/groups/${org.b.groupId}/api_keys`, { name: 'steal' }, { token: key })).status, 404);
  });

  it("refuses to create an event in another organiser's group with the spec's Group not found", async () => {
    const res = await server.post('/events', { name: 'Intruder', starts: '2026-12-01T18:00', ends: '2026-12-01T20:00', timezone: 'GMT', group_id: org.b.groupId }, { token: org.a.key });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { details: MSG.groupNotFound });
    const move = await server.put(`/events/${org.a.eventId}`, { group_id: org.b.groupId }, { token: org.a.key });
    assert.deepEqual(move.body, { details: MSG.groupNotFound });
  });

  it("refuses another organiser's group as parent_id", async () => {
    const res = await server.post('/groups', { name: 'Sneaky', parent_id: org.b.groupId }, { token: org.a.key });
    assert.deepEqual(res.body, { parent_id: [MSG.invalidParentId] });
  });

  it('a key sees sub-groups of its group and their events, created after the key', async () => {
    const sub = await createGroup(server, { name: 'A sub', parent_id: org.a.groupId });
    const subEvent = await createEvent(server, sub, { name: 'Sub night' });
    assert.equal((await server.get(`/groups/${sub}`, { token: org.a.key })).status, 200);
    assert.equal((await server.get(`/events/${subEvent}`, { token: org.a.key })).status, 200);
    assert.equal((await server.get(`/events/${subEvent}`, { token: org.b.key })).status, 404);
  });

  it("a sub-group's key does not see its parent", async () => {
    const sub = await createGroup(server, { name: 'Child only', parent_id: org.a.groupId });
    const subKey = await createApiKey(server, sub);
    assert.equal((await server.get(`/groups/${org.a.groupId}`, { token: subKey })).status, 404);
    assert.equal((await server.get(`/events/${org.a.eventId}`, { token: subKey })).status, 404);
  });
});
