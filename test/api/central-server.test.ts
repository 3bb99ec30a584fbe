import assert from 'node:assert/strict';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createDb, migrateLatest } from '../../db/knex';
import { MSG } from '../../core/messages';
import { createTestDatabase, TEST_PG, type TestDatabase } from '../helpers/database';
import { ADMIN } from '../helpers/server';
import { call, startServeProcess, type ServerProcess } from '../helpers/server-process';
import { eventually } from '../helpers/eventually';

// Several server processes on one PostgreSQL database must behave as one server.
const skip = TEST_PG ? false : 'several processes share one database only on PostgreSQL (DOORLIST_TEST_PG)';

/** An SMTP server that accepts everything and counts each message by its subject. */
function fakeSmtp(): Promise<{ url: string; subjects: string[]; close(): Promise<void> }> {
  const subjects: string[] = [];
  const server = net.createServer((socket) => {
    let data = false;
    let message = '';
    let pending = '';
    socket.write('220 fake ESMTP\r\n');
    socket.on('data', (chunk) => {
      pending += chunk.toString('utf8');
      let end: number;
      while ((end = pending.indexOf('\r\n')) >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 2);
        if (data) {
          if (line === '.') {
            data = false;
            subjects.push(/^Subject: (.*)$/m.exec(message)?.[1] ?? '');
            message = '';
            socket.write('250 queued\r\n');
          } else message += `${line}\n`;
        } else if (/^(EHLO|HELO)/i.test(line)) socket.write('250 fake\r\n');
        else if (/^DATA/i.test(line)) {
          data = true;
          socket.write('354 go on\r\n');
        } else if (/^QUIT/i.test(line)) socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({ url: `smtp://127.0.0.1:${port}`, subjects, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

describe('two server processes on one PostgreSQL database', { skip }, () => {
  let dir: string;
  let database: TestDatabase;
  let smtp: Awaited<ReturnType<typeof fakeSmtp>>;
  let a: ServerProcess;
  let b: ServerProcess;
  const MAILS = 30;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-central-'));
    database = await createTestDatabase(dir);
    // E-mails waiting in the outbox before the processes start: both deliver it at start-up.
    const db = createDb(database.setting);
    try {
      await migrateLatest(db);
      const now = new Date().toISOString();
      await db('outbox').insert(
        Array.from({ length: MAILS }, (_, i) => ({ uid: randomUUID(), created: now, modified: now, recipient: 'office@acme.test', subject: `Mail ${i}`, body: 'Hello' })),
      );
    } finally {
      await db.destroy();
    }
    smtp = await fakeSmtp();
    // Started together: migrations and the administrator's insert race, and both must come up.
    const env = { DOORLIST_DB: database.setting, DOORLIST_SMTP_URL: smtp.url };
    [a, b] = await Promise.all([startServeProcess(env), startServeProcess(env)]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await smtp?.close();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const login = async (baseUrl: string) => (await call(baseUrl, 'POST', '/apps/api/auth', { body: ADMIN })).body.token as string;

  it('both come up when started together, with one administrator who signs in on either', async () => {
    assert.equal(typeof (await login(a.baseUrl)), 'string');
    assert.equal(typeof (await login(b.baseUrl)), 'string');
    const db = createDb(database.setting);
    try {
      assert.deepEqual(await db('users').pluck('username'), [ADMIN.username]);
    } finally {
      await db.destroy();
    }
  });

  it('sends each outbox e-mail once, though both processes deliver the outbox', async () => {
    await eventually('every outbox e-mail sent', () => (smtp.subjects.length >= MAILS ? true : undefined));
    // A second sending of any of them would come from the other process's next delivery
    // round; nothing in the outbox marks its absence, so it is given half a second.
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual([...smtp.subjects].sort(), Array.from({ length: MAILS }, (_, i) => `Mail ${i}`).sort());
  });

  it('registers exactly capacity plus overbook of 30 concurrent registrations sent to both processes', async () => {
    const token = await login(a.baseUrl);
    const group = await call(a.baseUrl, 'POST', '/groups', { token, body: { name: 'Acme Events' } });
    const event = await call(b.baseUrl, 'POST', '/events', {
      token,
      body: { name: 'Launch Night', starts: '2026-12-01T18:00', ends: '2026-12-01T23:30', timezone: 'Europe/Amsterdam', group_id: group.body.id },
    });
    const eventId = event.body.id;
    const type = await call(a.baseUrl, 'POST', `/events/${eventId}/registration_types`, { token, body: { type: 'ticket', name: 'Standard', description: 'Entry' } });
    const session = await call(b.baseUrl, 'POST', `/events/${eventId}/sessions`, { token, body: { name: 'Masterclass', starts: '2026-12-01T18:00', ends: '2026-12-01T19:00', capacity: 2, overbook_capacity: 1 } });
    const guests: number[] = [];
    for (let i = 0; i < 30; i++) {
      const guest = await call(a.baseUrl, 'POST', `/events/${eventId}/guests`, { token, body: { registration_type: type.body.id, first_name: `Guest${i}`, last_name: 'Doe', email: `guest${i}@doe.test` } });
      guests.push(guest.body.id);
    }
    const answers = await Promise.all(
      guests.map((guestId, i) => call(i % 2 ? a.baseUrl : b.baseUrl, 'PUT', `/events/${eventId}/guests/${guestId}/registration/session/${session.body.id}`, { token, body: {} })),
    );
    assert.equal(answers.filter((r) => r.status === 200).length, 3);
    assert.deepEqual(new Set(answers.filter((r) => r.status !== 200).map((r) => JSON.stringify([r.status, r.body]))), new Set([JSON.stringify([400, { details: MSG.sessionFull }])]));
    assert.equal((await call(b.baseUrl, 'GET', `/events/${eventId}/sessions/${session.body.id}`, { token })).body.registered, 3);
  });

  it('refuses a duplicate promotion code sent to both processes at once with the field error, keeping one', async () => {
    const token = await login(b.baseUrl);
    const group = await call(a.baseUrl, 'POST', '/groups', { token, body: { name: 'Promo Events' } });
    const event = await call(a.baseUrl, 'POST', '/events', {
      token,
      body: { name: 'Promo Night', starts: '2026-12-01T18:00', ends: '2026-12-01T23:30', timezone: 'Europe/Amsterdam', group_id: group.body.id },
    });
    const code = { code: 'EARLY', discount_type: 'percent', discount_amount: 10, quantity: 5 };
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => call(i % 2 ? a.baseUrl : b.baseUrl, 'POST', `/events/${event.body.id}/promotion_codes`, { token, body: code })));
    assert.equal(answers.filter((r) => r.status === 201).length, 1);
    assert.deepEqual(new Set(answers.filter((r) => r.status !== 201).map((r) => JSON.stringify([r.status, r.body]))), new Set([JSON.stringify([400, { code: [MSG.promotionCodeExists] }])]));
  });

  // How soon: once b's cached answer runs out (AUTH_CACHE_MS, a second; its lifetime is
  // test/unit/auth-cache.test.ts's, on a moved clock). Here: that b refuses at all, and stays so.
  it('refuses on the other process a revoked key, a scope taken from a key and a role taken from a user', async () => {
    const token = await login(a.baseUrl);
    const top = await call(a.baseUrl, 'POST', '/groups', { token, body: { name: 'Revoke Org' } });
    const branch = await call(a.baseUrl, 'POST', '/groups', { token, body: { name: 'Revoke Branch', parent_id: top.body.id } });
    const event = await call(a.baseUrl, 'POST', '/events', {
      token,
      body: { name: 'Branch Night', starts: '2026-12-01T18:00', ends: '2026-12-01T23:30', timezone: 'Europe/Amsterdam', group_id: branch.body.id },
    });
    const revoked = await call(a.baseUrl, 'POST', `/groups/${top.body.id}/api_keys`, { token, body: { name: 'Revoked door' } });
    const scoped = await call(a.baseUrl, 'POST', `/groups/${top.body.id}/api_keys`, { token, body: { name: 'Org door' } });
    const user = await call(a.baseUrl, 'POST', `/groups/${top.body.id}/users`, { token, body: { username: 'revoke-manager', password: 'a-long-password', role: 'manager' } });
    const userToken = (await call(b.baseUrl, 'POST', '/apps/api/auth', { body: { username: 'revoke-manager', password: 'a-long-password' } })).body.token as string;

    // Process b has just answered each of them, so each answer is in b's cache when a changes it.
    const revokedOnB = () => call(b.baseUrl, 'GET', '/events', { token: revoked.body.key });
    const branchEventOnB = () => call(b.baseUrl, 'GET', `/events/${event.body.id}`, { token: scoped.body.key });
    const usersOnB = () => call(b.baseUrl, 'GET', `/groups/${top.body.id}/users`, { token: userToken });
    assert.equal((await revokedOnB()).status, 200);
    assert.equal((await branchEventOnB()).status, 200);
    assert.equal((await usersOnB()).status, 200);

    await Promise.all([
      call(a.baseUrl, 'DELETE', `/groups/${top.body.id}/api_keys/${revoked.body.id}`, { token }).then((r) => assert.equal(r.status, 204)),
      // The branch becomes a top-level group: the organisation's key no longer reaches its event.
      call(a.baseUrl, 'PUT', `/groups/${branch.body.id}`, { token, body: { parent_id: null } }).then((r) => assert.equal(r.status, 200)),
      call(a.baseUrl, 'PUT', `/groups/${top.body.id}/users/${user.body.id}`, { token, body: { role: 'door' } }).then((r) => assert.equal(r.status, 200)),
    ]);
    await Promise.all([
      eventually('the revoked key refused on b', async () => ((await revokedOnB()).status === 401 ? true : undefined)),
      eventually("the branch's event out of the key's scope on b", async () => ((await branchEventOnB()).status === 404 ? true : undefined)),
      eventually("the user's door role in force on b", async () => ((await usersOnB()).status === 403 ? true : undefined)),
    ]);
    // And it stays refused.
    assert.equal((await revokedOnB()).status, 401);
    assert.equal((await branchEventOnB()).status, 404);
    assert.equal((await usersOnB()).status, 403);
  });

  it('counts wrong passwords on both processes against one login limit', async () => {
    const wrong = { username: ADMIN.username, password: 'not-the-password' };
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push((await call(i % 2 ? a.baseUrl : b.baseUrl, 'POST', '/apps/api/auth', { body: wrong })).status);
    assert.deepEqual(new Set(answers), new Set([400]));
    for (const process of [a, b]) {
      const limited = await call(process.baseUrl, 'POST', '/apps/api/auth', { body: wrong });
      assert.equal(limited.status, 429);
      assert.deepEqual(limited.body, { detail: MSG.tooManyLogins });
    }
  });
});

