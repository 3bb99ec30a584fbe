import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GROUP_TYPES, MSG } from '../../core/messages';
import { createApiKey, createGroup, createUser } from '../helpers/fixtures';
import { TestServer } from '../helpers/server';

describe('groups', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  describe('POST /groups', () => {
    it('answers 400 "must be a JSON object" for a JSON body of null, a string or a number', async () => {
      for (const rawBody of ['null', '"Acme"', '12', '[]']) {
        const res = await server.request('POST', '/groups', { rawBody, headers: { 'content-type': 'application/json' } });
        assert.equal(res.status, 400, rawBody);
        assert.deepEqual(res.body, { detail: MSG.bodyNotObject }, rawBody);
      }
      const broken = await server.request('POST', '/groups', { rawBody: '{"name": ', headers: { 'content-type': 'application/json' } });
      assert.deepEqual(broken.body, { detail: MSG.malformedJson });
    });

    it('documents its fields as query parameters in the OpenAPI document, as the spec does, besides the JSON body', async () => {
      const doc = (await server.get('/openapi.json', { token: null })).body;
      for (const [path, method] of [['/groups', 'post'], ['/groups/{group_id}', 'put']]) {
        const query = doc.paths[path][method].parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name);
        assert.deepEqual(query, ['name', 'email', 'phone', 'website', 'type', 'parent_id'], `${method} ${path}`);
        assert.ok(doc.paths[path][method].requestBody.content['application/json'], `${method} ${path}`);
      }
    });

    it('answers 400 "Null characters are not allowed." for NUL in a text field', async () => {
      for (const fields of [{ name: 'Ac\u0000me' }, { name: 'Acme', phone: '\u0000' }]) {
        const res = await server.post('/groups', fields);
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { [Object.keys(fields).at(-1)!]: [MSG.nullCharacter] });
      }
    });

    it('answers 400 for query parameters that are not UTF-8, creating nothing', async () => {
      const before = (await server.get('/groups')).body.count;
      const res = await server.post('/groups?name=%FF%FE');
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { detail: MSG.queryNotUtf8 });
      assert.equal((await server.get('/groups')).body.count, before);
      assert.equal((await server.post(`/groups?name=${encodeURIComponent('Café')}`)).status, 201);
    });

    it('creates a group from a JSON body and answers 201 {id}', async () => {
      const res = await server.post('/groups', { name: 'Acme', email: 'hi@acme.test', phone: '+31 20 555', website: 'https://acme.test', type: 'Tech' });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body), ['id']);
      const detail = await server.get(`/groups/${res.body.id}`);
      assert.equal(detail.status, 200);
      assert.deepEqual(
        { ...detail.body, created: undefined, modified: undefined },
        { id: res.body.id, name: 'Acme', email: 'hi@acme.test', phone: '+31 20 555', website: 'https://acme.test', type: 'Tech', parent_id: null, created: undefined, modified: undefined },
      );
      assert.match(detail.body.created, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      assert.match(detail.body.modified, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    });

    it('creates a group from query parameters, type defaulting to Event Planner', async () => {
      const res = await server.request('POST', '/groups?name=Query%20Co&email=q%40co.test');
      assert.equal(res.status, 201);
      const detail = await server.get(`/groups/${res.body.id}`);
      assert.equal(detail.body.name, 'Query Co');
      assert.equal(detail.body.type, 'Event Planner');
      assert.equal(detail.body.phone, null);
    });

    it('accepts every one of the 11 group types', async () => {
      assert.equal(GROUP_TYPES.length, 11);
      for (const type of GROUP_TYPES) {
        const res = await server.post('/groups', { name: `G ${type}`, type });
        assert.equal(res.status, 201, type);
      }
    });

    it('answers 400 "This field is required." without a name', async () => {
      const res = await server.post('/groups', { email: 'x@y.test' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { name: [MSG.required] });
    });

    it('answers 400 with the list of valid types for an unknown type', async () => {
      const res = await server.post('/groups', { name: 'X', type: 'Circus' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { type: [MSG.invalidGroupType] });
      assert.ok(MSG.invalidGroupType.startsWith('Invalid type'));
      assert.ok(MSG.invalidGroupType.includes('Charity / Fundraiser'));
    });

    it('answers 400 "Enter a valid email address." for a bad e-mail', async () => {
      const res = await server.post('/groups', { name: 'X', email: 'not-an-email' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { email: [MSG.invalidEmail] });
    });

    it('takes an e-mail as Django does: trimmed, internationalised domain, localhost; refuses the rest', async () => {
      for (const [sent, stored] of [[' office@acme.test ', 'office@acme.test'], ['x@münchen.de', 'x@münchen.de'], ['door@localhost', 'door@localhost'], ['', null]]) {
        const res = await server.post('/groups', { name: 'Mail', email: sent });
        assert.equal(res.status, 201, String(sent));
        assert.equal((await server.get(`/groups/${res.body.id}`)).body.email, stored, String(sent));
      }
      for (const email of ['a@@b.test', 'a b@c.test', 'a@b', 'jürgen@example.de', 5, ['a@b.test']]) {
        assert.deepEqual((await server.post('/groups', { name: 'Mail', email })).body, { email: [MSG.invalidEmail] }, JSON.stringify(email));
      }
    });

    it('answers 400 "Invalid parent_id." for an unknown or malformed parent', async () => {
      for (const parent_id of [999999, 'abc', -1]) {
        const res = await server.post('/groups', { name: 'Child', parent_id });
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { parent_id: [MSG.invalidParentId] });
      }
    });

    it('links a sub-group to its parent', async () => {
      const parent = await createGroup(server, { name: 'Parent' });
      const child = await createGroup(server, { name: 'Child', parent_id: parent });
      const detail = await server.get(`/groups/${child}`);
      assert.equal(detail.body.parent_id, parent);
    });

    it('answers 400 for a blank name', async () => {
      const res = await server.post('/groups', { name: '   ' });
      assert.deepEqual(res.body, { name: [MSG.blank] });
    });
  });

  describe('PUT /groups/:group_id', () => {
    it('updates given fields and answers 200 {id}', async () => {
      const id = await createGroup(server, { name: 'Before', phone: '1' });
      const res = await server.put(`/groups/${id}`, { name: 'After', type: 'Venue' });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { id });
      const detail = await server.get(`/groups/${id}`);
      assert.equal(detail.body.name, 'After');
      assert.equal(detail.body.type, 'Venue');
      assert.equal(detail.body.phone, '1');
    });

    it('answers 400 for an invalid e-mail or type, changing nothing', async () => {
      const id = await createGroup(server, { name: 'Stable' });
      const res = await server.put(`/groups/${id}`, { name: 'Changed', email: 'nope', type: 'Bad' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { email: [MSG.invalidEmail], type: [MSG.invalidGroupType] });
      assert.equal((await server.get(`/groups/${id}`)).body.name, 'Stable');
    });

    it('refuses to hang a group below itself or its own sub-group', async () => {
      const top = await createGroup(server, { name: 'Top' });
      const sub = await createGroup(server, { name: 'Sub', parent_id: top });
      for (const parent_id of [top, sub]) {
        const res = await server.put(`/groups/${top}`, { parent_id });
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { parent_id: [MSG.invalidParentId] });
      }
    });

    it('answers 404 for an unknown group', async () => {
      const res = await server.put('/groups/999999', { name: 'X' });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.groupNotFound });
    });
  });

  describe('GET /groups', () => {
    it('lists groups in the envelope and filters by parent_id', async () => {
      const parent = await createGroup(server, { name: 'Family' });
      const a = await createGroup(server, { name: 'Kid A', parent_id: parent });
      const b = await createGroup(server, { name: 'Kid B', parent_id: parent });
      const res = await server.get(`/groups?parent_id=${parent}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.count, 2);
      assert.equal(res.body.next, null);
      assert.equal(res.body.previous, null);
      assert.deepEqual(res.body.results.map((g: { id: number }) => g.id), [a, b]);
      assert.deepEqual(Object.keys(res.body.results[0]).sort(), ['created', 'email', 'id', 'modified', 'name', 'parent_id', 'phone', 'type', 'website']);
    });

    it('pages with absolute next and previous links', async () => {
      const first = await server.get('/groups?page_size=2');
      assert.ok(first.body.count > 2);
      assert.equal(first.body.results.length, 2);
      assert.equal(first.body.next, `${server.baseUrl}/groups?page_size=2&page=2`);
      const second = await server.get('/groups?page_size=2&page=2');
      assert.equal(second.body.previous, `${server.baseUrl}/groups?page_size=2`);
    });

    it('answers 400 for page 0 or a non-numeric page size', async () => {
      assert.deepEqual((await server.get('/groups?page=0')).body, { page: [MSG.invalidPage] });
      assert.equal((await server.get('/groups?page_size=lots')).status, 400);
    });
  });

  describe('GET /groups/:group_id', () => {
    it('answers 404 for an unknown or malformed id', async () => {
      assert.equal((await server.get('/groups/424242')).status, 404);
      assert.equal((await server.get('/groups/abc')).status, 404);
    });

    it('answers {detail: "Group not found."} alike for an unknown id and one that is not a plain number', async () => {
      const id = await createGroup(server);
      for (const junk of ['424242', 'abc', `${id}.0`, `0x${id.toString(16)}`, '0', '99999999999999999999']) {
        for (const path of [`/groups/${junk}`, `/groups/${junk}/api_keys`]) {
          const res = await server.get(path);
          assert.equal(res.status, 404, path);
          assert.deepEqual(res.body, { detail: MSG.groupNotFound }, path);
        }
      }
    });
  });

  describe('scope of an API key', () => {
    it('a key creates its new groups below its own group and cannot make them top-level', async () => {
      const own = await createGroup(server, { name: 'Keyed' });
      const key = await createApiKey(server, own);
      const res = await server.post('/groups', { name: 'Made by key' }, { token: key });
      assert.equal(res.status, 201);
      assert.equal((await server.get(`/groups/${res.body.id}`, { token: key })).body.parent_id, own);
      const detach = await server.put(`/groups/${res.body.id}`, { parent_id: null }, { token: key });
      assert.deepEqual([detach.status, detach.body], [403, { detail: MSG.keysCannotManage }]);
    });

    it("a group's manager cannot make its sub-groups top-level", async () => {
      const own = await createGroup(server, { name: 'Managed' });
      const sub = await createGroup(server, { name: 'Managed sub', parent_id: own });
      const manager = await createUser(server, own, 'manager');
      const detach = await server.put(`/groups/${sub}`, { parent_id: null }, { token: manager.token });
      assert.deepEqual([detach.status, detach.body], [400, { parent_id: [MSG.invalidParentId] }]);
    });
  });
});
