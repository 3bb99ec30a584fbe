import assert from 'node:assert/strict';
import type { TestServer } from './server';

/** Creates a group (as admin unless a token is given) and returns its id. */
export async function createGroup(server: TestServer, fields: Record<string, unknown> = {}, token?: string): Promise<number> {
  const res = await server.post('/groups', { name: 'Acme Events', email: 'office@acme.test', ...fields }, { token });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

export async function createEvent(server: TestServer, groupId: number, fields: Record<string, unknown> = {}, token?: string): Promise<number> {
  const res = await server.post(
    '/events',
    { name: 'Launch Night', starts: '2026-12-01T18:00', ends: '2026-12-01T23:30', timezone: 'Europe/Amsterdam', group_id: groupId, ...fields },
    { token },
  );
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

/** An API key of the group, made by the admin. */
export async function createApiKey(server: TestServer, groupId: number, name = 'door laptop'): Promise<string> {
  const res = await server.post(`/groups/${groupId}/api_keys`, { name });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.key;
}

/** An API key of the group with a role, made by the admin. */
export async function createRoleKey(server: TestServer, groupId: number, role: 'manager' | 'door', name = `${role} key`): Promise<string> {
  const res = await server.post(`/groups/${groupId}/api_keys`, { name, role });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.key;
}

/** A user of the group with a role, made by the admin and signed in: their id and token. */
export async function createUser(
  server: TestServer,
  groupId: number,
  role: 'manager' | 'door',
  username = `${role}-${Math.random().toString(36).slice(2, 10)}`,
): Promise<{ id: number; username: string; password: string; token: string }> {
  const password = `${username}-password`;
  const res = await server.post(`/groups/${groupId}/users`, { username, password, role });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const login = await server.post('/apps/api/auth', { username, password }, { token: null });
  assert.equal(login.status, 200, JSON.stringify(login.body));
  return { id: res.body.id, username, password, token: login.body.token };
}

/** Two organisers that must never see each other: each with a group, an event and a key. */
export async function twoOrganisers(server: TestServer) {
  const groupA = await createGroup(server, { name: 'Organiser A' });
  const groupB = await createGroup(server, { name: 'Organiser B' });
  const eventA = await createEvent(server, groupA, { name: 'A night' });
  const eventB = await createEvent(server, groupB, { name: 'B night' });
  return {
    a: { groupId: groupA, eventId: eventA, key: await createApiKey(server, groupA) },
    b: { groupId: groupB, eventId: eventB, key: await createApiKey(server, groupB) },
  };
}

/**
 * Moves the rows' `modified` an hour back, as if they had been written then: a test of
 * `timestamp` deltas (whole seconds) or of `modified` moving on then needs no wait for the
 * clock to cross a second.
 */
export async function stampEarlier(server: TestServer, table: string, where: Record<string, unknown>, seconds = 3600): Promise<void> {
  const changed = await server.db(table).where(where).update({ modified: new Date(Date.now() - seconds * 1000).toISOString() });
  assert.ok(Number(changed) > 0, `no ${table} row matched ${JSON.stringify(where)}`);
}
