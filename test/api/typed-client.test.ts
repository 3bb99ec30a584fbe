import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestServer } from '../helpers/server';
import { TypedClient } from '../client/typed-client';
import { MSG } from '../../core/messages';

/**
 * A client generated from /api/v1/openapi.json (openapi-typescript, types only) calls every
 * resource once. `npm run typecheck` generates the types and compiles this file, so a path,
 * field or status the document drops or renames breaks the build; run, it shows the answers
 * are the ones the types promise (the test server's reply check holds each to its schema).
 */
describe('a client generated from the API document', () => {
  let server: TestServer;
  let api: TypedClient;
  before(async () => {
    server = await TestServer.start();
    api = new TypedClient(server.baseUrl, server.adminToken);
  });
  after(async () => {
    await server.stop();
  });

  it('signs in, sets up an organisation and an event, and reads who it is', async () => {
    const signIn = await api.call('post', '/apps/api/auth', { body: { username: 'admin', password: 'door-admin-secret' }, token: null });
    assert.equal(signIn.status, 200);
    if (signIn.status === 200) assert.ok(signIn.body.token.length > 20);
    const setup = await api.call('get', '/setup', { token: null });
    assert.deepEqual([setup.status, setup.status === 200 && setup.body.needed], [200, false]);
    const me = await api.call('get', '/me', {});
    assert.equal(me.status === 200 && me.body.is_admin, true);
    const group = await api.call('post', '/groups', { body: { name: 'Typed Co' } });
    assert.equal(group.status, 201);
    if (group.status !== 201) return;
    const groupId = group.body.id;
    const key = await api.call('post', '/groups/{group_id}/api_keys', { path: { group_id: groupId }, body: { name: 'door', role: 'door' } });
    assert.equal(key.status, 201);
    const user = await api.call('post', '/groups/{group_id}/users', { path: { group_id: groupId }, body: { username: 'typed-manager', password: 'a long enough secret', role: 'manager' } });
    assert.equal(user.status, 201);
    const event = await api.call('post', '/events', {
      body: { name: 'Typed Night', starts: '2026-12-31T20:00', ends: '2027-01-01T02:00', timezone: 'Europe/Amsterdam', group_id: groupId },
    });
    assert.equal(event.status, 201);
    if (event.status !== 201) return;
    const got = await api.call('get', '/events/{event_id}', { path: { event_id: event.body.id } });
    assert.equal(got.status === 200 && got.body.name, 'Typed Night');
  });

  it('fills an event, scans a guest in, and reads every list and file of it', async () => {
    const group = await api.call('post', '/groups', { body: { name: 'Typed Door Co' } });
    assert.equal(group.status, 201);
    if (group.status !== 201) return;
    const created = await api.call('post', '/events', {
      body: { name: 'Door Night', starts: '2026-12-31T20:00', ends: '2027-01-01T02:00', timezone: 'GMT', group_id: group.body.id },
    });
    if (created.status !== 201) return assert.fail(`event: ${created.status}`);
    const path = { event_id: created.body.id };
    const type = await api.call('post', '/events/{event_id}/registration_types', { path, body: { type: 'ticket', name: 'General', description: '' } });
    if (type.status !== 201) return assert.fail(`registration type: ${type.status}`);
    const question = await api.call('post', '/events/{event_id}/custom_questions', { path, body: { question: 'Diet?', type: 'text' } });
    assert.equal(question.status, 201);
    const guest = await api.call('post', '/events/{event_id}/guests', {
      path,
      body: { registration_type: type.body.id, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.org', barcode: 'TYPED-1' },
    });
    if (guest.status !== 201) return assert.fail(`guest: ${guest.status}`);
    const scanned = await api.call('post', '/events/{event_id}/checkins', { path, body: { barcode: 'TYPED-1', uid: 'typed-scan-1' } });
    assert.equal(scanned.status === 201 && scanned.body.status, 'checked_in');
    const again = await api.call('post', '/events/{event_id}/checkins', { path, body: { barcode: 'TYPED-1', uid: 'typed-scan-2' } });
    assert.equal(again.status === 409 && again.body.status, 'already_checked_in');
    const track = await api.call('post', '/events/{event_id}/sessions/tracks', { path, body: { name: 'Main', starts: '2026-12-31T20:00', ends: '2026-12-31T23:00' } });
    assert.equal(track.status, 200);
    const session = await api.call('post', '/events/{event_id}/sessions', { path, body: { name: 'Talk', starts: '2026-12-31T21:00', ends: '2026-12-31T22:00' } });
    if (session.status !== 200) return assert.fail(`session: ${session.status}`);
    const registered = await api.call('put', '/events/{event_id}/guests/{guest_id}/registration/session/{session_id}', {
      path: { ...path, guest_id: guest.body.id, session_id: session.body.id },
      body: { attend: true },
    });
    assert.equal(registered.status === 200 && registered.body.status, 'registered');
    const code = await api.call('post', '/events/{event_id}/promotion_codes', { path, body: { code: 'EARLY', discount_type: 'percent', discount_amount: 10, quantity: 5 } });
    assert.equal(code.status, 201);

    const guests = await api.call('get', '/events/{event_id}/guests', { path, query: { search: 'ada' } });
    assert.deepEqual(guests.status === 200 && guests.body.results.map((g) => g.first_name), ['Ada']);
    const checkins = await api.call('get', '/events/{event_id}/checkins', { path });
    assert.equal(checkins.status === 200 && checkins.body.count, 1);
    const stats = await api.call('get', '/events/{event_id}/stats', { path });
    assert.equal(stats.status, 200);
    const layout = await api.call('get', '/events/{event_id}/badge_layout', { path });
    assert.equal(layout.status, 200);
    const prints = await api.call('get', '/events/{event_id}/badge_prints', { path });
    assert.equal(prints.status === 200 && prints.body.count, 0);
    const csv = await api.call('get', '/events/{event_id}/guests.csv', { path });
    assert.equal(csv.status, 200);
    const exported = await api.call('get', '/events/{event_id}/export', { path });
    assert.equal(exported.status, 200);
    // An event this laptop does not follow has no sync to read.
    const sync = await api.call('get', '/events/{event_id}/sync', { path });
    assert.equal(sync.status === 404 && 'detail' in sync.body && sync.body.detail, MSG.syncNotFound);
    const followed = await api.call('get', '/sync', {});
    assert.equal(followed.status, 200);
    const lan = await api.call('get', '/lan', {});
    assert.equal(lan.status, 200);
  });

  it('gets each error in the shape the document gives it, typed by status', async () => {
    const missing = await api.call('get', '/events/{event_id}', { path: { event_id: 999999 } });
    assert.deepEqual([missing.status, missing.body], [404, { detail: MSG.eventNotFound }]);
    const refused = await api.call('post', '/groups', { body: { name: '' } });
    assert.equal(refused.status, 400);
    if (refused.status === 400 && !('detail' in refused.body)) assert.ok(Array.isArray(refused.body.name));
    const anonymous = await api.call('get', '/me', { token: null });
    assert.equal(anonymous.status === 401 && anonymous.body.detail, MSG.sessionExpired);
  });
});
