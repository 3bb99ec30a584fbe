import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { scan, seedGuests, seedRegistrationType, createSession } from '../helpers/checkins';
import { createEvent, createGroup, createRoleKey, createUser } from '../helpers/fixtures';
import { validate, type Schema } from '../helpers/openapi-validate';
import { TestServer, type ApiResponse } from '../helpers/server';
import { makeCertificateRequest } from '../../server/lan-certificates';

const METHODS = ['get', 'post', 'put', 'delete'] as const;
/** An id no record has, in every id's documented range. */
const MISSING_ID = 999999;

/**
 * A body each operation with a required JSON body and a path id takes, so a missing record is
 * what answers (input is read before a record is looked up). Keyed by operationId.
 */
let certificateRequest = '';
const VALID_BODIES: Record<string, (ids: Record<string, number>) => unknown> = {
  scanGuest: (ids) => ({ guest_id: ids.guest_id }),
  createGuest: (ids) => ({ registration_type: ids.registration_type_id, first_name: 'Walk', last_name: '', email: '' }),
  createApiKey: () => ({ name: 'walk' }),
  createUser: () => ({ username: 'walk-user', password: 'a long enough secret' }),
  createRegistrationType: () => ({ type: 'ticket', name: 'Walk', description: '' }),
  createCustomQuestion: () => ({ question: 'Walk?', type: 'text' }),
  createTrack: () => ({ name: 'Walk', starts: '2026-12-01T18:00', ends: '2026-12-01T19:00' }),
  createSession: () => ({ name: 'Walk', starts: '2026-12-01T18:00', ends: '2026-12-01T19:00' }),
  createPromotionCode: () => ({ code: 'WALK2', discount_type: 'flat', discount_amount: 1, quantity: 1 }),
  printSelectedBadges: (ids) => ({ guest_ids: [ids.guest_id] }),
  updateBadgeLayout: () => ({ size: 'A6' }),
  signFollowerCertificate: () => ({ certificate_request: certificateRequest }),
  greetVenue: () => ({ name: 'Walk door', url: 'https://10.0.0.9:8788/api/v1', fingerprint: 'ab'.repeat(32), event_id: 1, epoch: 1, part: 'follower' }),
};

/** The same for a query the route reads before its record (a badge sheet's selection). */
const VALID_QUERIES: Record<string, string> = { printBadges: '?not_printed=true' };

interface Operation {
  method: string;
  path: string;
  spec: Schema;
}

/**
 * Every operation /openapi.json documents, walked three ways (a bad body, a missing record, a
 * wrong role), each answer held to the document itself: its status is one the operation lists,
 * its JSON body fits that status's schema. A route added later is walked without editing this.
 */
describe('GET /openapi.json describes every answer: a walk of every documented operation', () => {
  let server: TestServer;
  let document: Schema;
  let operations: Operation[];
  let ids: Record<string, number>;
  let doorKey: string;

  before(async () => {
    server = await TestServer.start();
    certificateRequest = (await makeCertificateRequest({ ips: ['10.0.0.9'], dns: [] })).request;
    document = (await server.get('/openapi.json', { token: null })).body;
    operations = Object.entries<Record<string, Schema>>(document.paths).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ method, path, spec: item[method] })),
    );
    const groupId = await createGroup(server, { name: 'Walk Co' });
    const eventId = await createEvent(server, groupId);
    const typeId = await seedRegistrationType(server, eventId);
    const [guestId] = await seedGuests(server, eventId, typeId, [{ barcode: 'WALK-1' }]);
    const question = await server.post(`/events/${eventId}/custom_questions`, { question: 'Diet?', type: 'text' });
    const track = await server.post(`/events/${eventId}/sessions/tracks`, { name: 'Main', starts: '2026-12-01T18:00', ends: '2026-12-01T23:00' });
    const code = await server.post(`/events/${eventId}/promotion_codes`, { code: 'WALK', discount_type: 'flat', discount_amount: 5, quantity: 3 });
    const checkin = await scan(server, eventId, { barcode: 'WALK-1', uid: 'walk-1' });
    const key = await server.post(`/groups/${groupId}/api_keys`, { name: 'spare' });
    ids = {
      group_id: groupId,
      event_id: eventId,
      registration_type_id: typeId,
      guest_id: guestId,
      custom_question_id: question.body.id,
      track_id: track.body.id,
      session_id: await createSession(server, eventId),
      promotion_code_id: code.body.id,
      checkin_id: checkin.body.id,
      key_id: key.body.id,
      user_id: (await createUser(server, groupId, 'manager')).id,
    };
    for (const [name, id] of Object.entries(ids)) assert.equal(typeof id, 'number', name);
    doorKey = await createRoleKey(server, groupId, 'door');
  });
  after(() => server.stop());

  const fill = (path: string, id: (name: string) => number) => path.replace(/\{(\w+)\}/g, (_m, name: string) => String(id(name)));

  /** The answer is one the operation documents, and its JSON body fits that status's schema. */
  function assertDocumented(op: Operation, res: ApiResponse, how: string): void {
    const label = `${op.method.toUpperCase()} ${op.path} (${how}) answered ${res.status} ${typeof res.body === 'string' ? res.body.slice(0, 80) : JSON.stringify(res.body)}`;
    const declared = op.spec.responses[String(res.status)];
    assert.ok(declared, `${label}: status not documented`);
    assert.ok(res.status < 500, `${label}: a server error`);
    const type = (res.headers.get('content-type') ?? '').split(';')[0];
    if (type === 'application/json') {
      const schema = declared.content?.['application/json']?.schema;
      assert.ok(schema, `${label}: a JSON body where none is documented`);
      assert.deepEqual(validate(document, schema, res.body), [], label);
    } else if (res.body !== '') {
      assert.ok(Object.keys(declared.content ?? {}).includes(type), `${label}: ${type} not documented`);
    }
  }

  /** A JSON body of the request's fields, each of the wrong type; or bytes that are no file for an upload. */
  function badBody(op: Operation): { body?: unknown; rawBody?: string; headers?: Record<string, string> } | undefined {
    const content = op.spec.requestBody?.content as Record<string, Schema> | undefined;
    if (!content) return undefined;
    const json = content['application/json']?.schema;
    if (!json) return { rawBody: '"an unterminated quote, and no file at all\n', headers: { 'content-type': Object.keys(content)[0] } };
    const resolved = json.$ref ? document.components.schemas[json.$ref.split('/').pop()] : json;
    const fields = Object.keys(resolved.properties ?? {});
    return { body: fields.length > 0 ? Object.fromEntries(fields.map((name) => [name, { wrong: [true] }])) : [1] };
  }

  it('documents every operation with an operationId, one listed tag, and its error answers', () => {
    const tags = new Set(document.tags.map((tag: { name: string }) => tag.name));
    const operationIds = new Set<string>();
    for (const op of operations) {
      const label = `${op.method.toUpperCase()} ${op.path}`;
      assert.match(op.spec.operationId ?? '', /^[a-z][A-Za-z]+$/, label);
      assert.ok(!operationIds.has(op.spec.operationId), `${label}: operationId used twice`);
      operationIds.add(op.spec.operationId);
      assert.equal(op.spec.tags.length, 1, label);
      assert.ok(tags.has(op.spec.tags[0]), `${label}: tag ${op.spec.tags[0]} not listed`);
      for (const parameter of op.spec.parameters ?? []) assert.ok(parameter.description, `${label}: ${parameter.name} undescribed`);
      for (const status of ['400', '413', '503', ...(op.spec.security.length > 0 ? ['401'] : [])]) {
        assert.ok(op.spec.responses[status]?.content?.['application/json']?.schema, `${label}: no ${status} body`);
      }
      if (/\{\w+\}/.test(op.path)) assert.ok(op.spec.responses['404']?.content?.['application/json']?.schema, `${label}: no 404 body`);
      assert.ok(!op.path.endsWith('/'), `${label}: a trailing-slash alias`);
    }
  });

  it('answers a bad body with a 400 the document describes', async () => {
    for (const op of operations) {
      const bad = badBody(op);
      if (!bad) continue;
      const res = await server.request(op.method.toUpperCase(), fill(op.path, (name) => ids[name]), bad);
      assertDocumented(op, res, 'bad body');
      assert.equal(res.status, 400, `${op.method.toUpperCase()} ${op.path}: ${JSON.stringify(res.body)}`);
    }
  });

  it('answers a path id that names no record with a 404 the document describes', async () => {
    const needBodies = operations.filter((o) => /\{\w+\}/.test(o.path) && o.spec.requestBody?.required && o.spec.requestBody.content['application/json']);
    assert.deepEqual(needBodies.map((o) => o.spec.operationId).filter((id) => !VALID_BODIES[id]), [], 'operations the walk has no valid body for');
    for (const op of operations.filter((o) => /\{\w+\}/.test(o.path))) {
      // Each id missing in turn (the others real), so every parameter's not-found body is met.
      for (const missing of [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
        const body = VALID_BODIES[op.spec.operationId]?.(ids);
        const res = await server.request(op.method.toUpperCase(), fill(op.path, (name) => (name === missing ? MISSING_ID : ids[name])) + (VALID_QUERIES[op.spec.operationId] ?? ''), { body });
        assertDocumented(op, res, `no ${missing}`);
        assert.equal(res.status, 404, `${op.method.toUpperCase()} ${op.path} without ${missing}: ${JSON.stringify(res.body)}`);
      }
    }
  });

  it("answers a door key on every operation as the document says (a manager's route: 403)", async () => {
    for (const op of operations.filter((o) => o.spec.security.length > 0)) {
      const res = await server.request(op.method.toUpperCase(), fill(op.path, (name) => ids[name]), { token: doorKey });
      assertDocumented(op, res, 'door key');
      if (/^Who may call it: Manager role \(|signed-in/i.test(op.spec.description ?? '')) assert.equal(res.status, 403, `${op.method.toUpperCase()} ${op.path}`);
    }
  });

  it('answers 405 with Allow for a method a documented path does not have, never another route', async () => {
    for (const [path, item] of Object.entries<Record<string, Schema>>(document.paths)) {
      const has = METHODS.filter((method) => item[method]).map((method) => method.toUpperCase());
      const allow = [...has, ...(has.includes('GET') ? ['HEAD'] : []), 'OPTIONS'];
      for (const method of METHODS.map((m) => m.toUpperCase()).filter((m) => !has.includes(m))) {
        const res = await server.request(method, fill(path, (name) => ids[name]));
        assert.deepEqual([res.status, res.body], [405, { detail: MSG.methodNotAllowed(method) }], `${method} ${path}`);
        assert.deepEqual(res.headers.get('allow')?.split(', ').sort(), allow.sort(), `${method} ${path}`);
      }
    }
    // "tracks" is the tracks path, not a session id: PUT has no route there.
    const tracks = await server.put(`/events/${ids.event_id}/sessions/tracks`, { name: 'x' });
    assert.deepEqual([tracks.status, tracks.headers.get('allow')], [405, 'GET, HEAD, POST, OPTIONS']);
    // A trailing slash is the same path; an unknown path is still 404.
    assert.equal((await server.put(`/events/${ids.event_id}/sessions/tracks/`, {})).status, 405);
    assert.deepEqual((await server.put('/no-such-thing', {})).body, { detail: MSG.notFound });
  });
});
