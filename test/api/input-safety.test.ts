import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createEvent, createGroup } from '../helpers/fixtures';
import { documentedOperations, type Operation } from '../helpers/openapi';
import { TestServer } from '../helpers/server';

function fillPath(path: string, ids: Record<string, number>): string {
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => String(ids[name] ?? 1));
}

const JUNK_BODIES: Array<string> = [
  '{"broken": ',
  '[1, 2, 3]',
  '"just a string"',
  'null',
  '12',
  JSON.stringify({ name: { nested: true }, id: [], event_id: 'x', guest_id: -1, quantity: 1e300, starts: 5, page: {}, barcode: null, attend: 'maybe', tags: 'x', choices: 'y', custom_questions: 'z' }),
  JSON.stringify({ first_name: 'A'.repeat(100_000), registration_type: '1; DROP TABLE guests', email: '\u0000' }),
];

describe('every documented route', () => {
  let server: TestServer;
  let ops: Operation[];
  let ids: Record<string, number>;
  before(async () => {
    server = await TestServer.start();
    ops = await documentedOperations(server);
    const groupId = await createGroup(server);
    ids = { group_id: groupId, event_id: await createEvent(server, groupId) };
  });
  after(() => server.stop());

  it('answers 401 with the exact body when no valid token is sent', async () => {
    const guarded = ops.filter((op) => !op.public);
    assert.ok(guarded.length >= 47, `only ${guarded.length} guarded routes documented`);
    for (const op of guarded) {
      const attempts: Record<string, string>[] = [{}, { authorization: 'Token not-a-real-key' }];
      for (const headers of attempts) {
        const res = await server.request(op.method, fillPath(op.path, ids), { token: null, headers, body: op.method === 'GET' ? undefined : {} });
        assert.equal(res.status, 401, `${op.method} ${op.path}`);
        assert.deepEqual(res.body, { detail: MSG.sessionExpired }, `${op.method} ${op.path}`);
      }
    }
  });

  it('never answers 500 to junk bodies, junk ids or junk query strings', async () => {
    for (const op of ops) {
      const paths = [fillPath(op.path, ids), fillPath(op.path, {}).replace(/\/1(?=\/|$)/g, '/99999999999999999999'), `${fillPath(op.path, ids)}?page=-1&page_size=abc&timestamp=%00&search=%27%22&only_checkins=maybe&group_id=x`];
      for (const path of paths) {
        for (const rawBody of op.method === 'GET' || op.method === 'DELETE' ? [undefined] : JUNK_BODIES) {
          const res = await server.request(op.method, path, { rawBody, headers: rawBody === undefined ? {} : { 'content-type': 'application/json' } });
          assert.ok(res.status < 500, `${op.method} ${path} ${String(rawBody).slice(0, 40)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        }
      }
    }
  });
});

describe('request bodies', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  it('answers 400 with a clear message for malformed JSON', async () => {
    const res = await server.request('POST', '/groups', { rawBody: '{"name": "x",', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { detail: MSG.malformedJson });
  });

  it('answers 400 for a content type that is not JSON', async () => {
    const res = await server.request('POST', '/groups', { rawBody: '<group/>', headers: { 'content-type': 'application/xml' } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { detail: MSG.unsupportedContentType });
  });

  it('answers 400 when the body is not a JSON object', async () => {
    const res = await server.request('POST', '/groups', { rawBody: '["Acme"]', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400);
  });

  it('answers 413 for a body over the limit, writing nothing', async () => {
    const before = (await server.db('groups').count({ n: '*' }))[0].n;
    const res = await server.request('POST', '/groups', { rawBody: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }), headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 413);
    assert.deepEqual(res.body, { detail: MSG.bodyTooLarge });
    assert.equal((await server.db('groups').count({ n: '*' }))[0].n, before);
  });

  it('answers 401, not the body\'s error, when no valid token comes with a body the parser refuses', async () => {
    const refused: Array<{ rawBody: string; type: string }> = [
      { rawBody: '{"name": "x",', type: 'application/json' },
      { rawBody: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }), type: 'application/json' },
      { rawBody: '{"name": "x"}', type: 'application/json; charset=latin-7' },
    ];
    const eventId = await createEvent(server, await createGroup(server));
    // /checkins is the scan's fast path, which reads the body itself.
    for (const [method, path] of [['POST', '/groups'], ['PUT', `/events/${eventId}`], ['POST', `/events/${eventId}/checkins`], ['POST', `/events/${eventId}/checkins/`]]) {
      for (const { rawBody, type } of refused) {
        for (const headers of [{ 'content-type': type }, { 'content-type': type, authorization: 'Token not-a-real-key' }] as Record<string, string>[]) {
          const res = await server.request(method, path, { token: null, rawBody, headers });
          assert.equal(res.status, 401, `${method} ${path} ${type} ${rawBody.slice(0, 20)}`);
          assert.deepEqual(res.body, { detail: MSG.sessionExpired });
        }
      }
    }
    // With a valid token the body's own error stands.
    const broken = await server.request('POST', `/events/${eventId}/checkins`, { rawBody: '{"barcode": ', headers: { 'content-type': 'application/json' } });
    assert.deepEqual([broken.status, broken.body], [400, { detail: MSG.malformedJson }]);
  });

  it('answers 404 {detail} for unknown API routes', async () => {
    const res = await server.get('/no/such/route');
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: MSG.notFound });
  });
});
