import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { FATAL_EXIT_CODE } from '../../server/fatal-faults';
import { call, signIn, startServeProcess, type ServerProcess } from '../helpers/server-process';
import { ADMIN } from '../helpers/server';
import { eventually } from '../helpers/eventually';
import { SERVE_ENTRY } from '../helpers/built-app';

const ROOT = path.resolve(__dirname, '..', '..');

function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const isRoot = process.getuid?.() === 0;
const mountSkip = !isRoot ? 'mounting a file system for the fault needs root' : false;
const ext4Skip = mountSkip || (!hasCommand('mkfs.ext4') || !hasCommand('chattr') ? 'needs mkfs.ext4 and chattr' : false);

/** A group, an event with a registration type, and a way to add guests and scan them. */
async function eventOn(server: ServerProcess, token: string) {
  const group = await call(server.baseUrl, 'POST', '/groups', { token, body: { name: 'Fault Events' } });
  const event = await call(server.baseUrl, 'POST', '/events', { token, body: { group_id: group.body.id, name: 'Fault night', starts: '2026-12-01T18:00', ends: '2026-12-01T23:00', timezone: 'GMT' } });
  const type = await call(server.baseUrl, 'POST', `/events/${event.body.id}/registration_types`, { token, body: { type: 'ticket', name: 'General', description: '' } });
  let n = 0;
  return {
    eventId: event.body.id as number,
    /** A guest added, then scanned, then a group made: three kinds of write, their answers. */
    async writes(): Promise<{ status: number; body: any }[]> {
      const barcode = `FAULT-${++n}`;
      const guest = await call(server.baseUrl, 'POST', `/events/${event.body.id}/guests`, { token, body: { registration_type: type.body.id, first_name: 'Ada', last_name: String(n), email: 'ada@example.test', barcode } });
      const scan = await call(server.baseUrl, 'POST', `/events/${event.body.id}/checkins`, { token, body: { barcode } });
      const group2 = await call(server.baseUrl, 'POST', '/groups', { token, body: { name: `Group ${n}` } });
      return [guest, scan, group2];
    },
  };
}

describe('a read-only moment of the database file', { skip: ext4Skip }, () => {
  let dir: string;
  let mount: string;
  let server: ServerProcess;
  let token: string;
  const dbFiles = () => ['doorlist.sqlite', 'doorlist.sqlite-wal'].map((f) => path.join(mount, f));

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-readonly-'));
    mount = path.join(dir, 'mnt');
    fs.mkdirSync(mount);
    // ext4, where the immutable flag refuses writes through files already open (tmpfs does not).
    execFileSync('truncate', ['-s', '64M', path.join(dir, 'disk.img')]);
    execFileSync('mkfs.ext4', ['-q', '-O', '^has_journal', '-F', path.join(dir, 'disk.img')]);
    execFileSync('mount', ['-o', 'loop', path.join(dir, 'disk.img'), mount]);
    server = await startServeProcess({ DOORLIST_DB: path.join(mount, 'doorlist.sqlite'), DOORLIST_LOG_LEVEL: 'warn' });
    token = await signIn(server.baseUrl);
  });
  after(async () => {
    if (mount) execFileSync('chattr', ['-i', ...dbFiles().filter((f) => fs.existsSync(f))]);
    await server?.stop();
    if (mount) execFileSync('umount', [mount]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers writes 503 with what to check while it lasts, and writes again by themselves after it', async () => {
    const event = await eventOn(server, token);
    assert.deepEqual((await event.writes()).map((r) => r.status), [201, 201, 201]);
    // The -shm file stays writable: SQLite maps it, and a write refused there is a SIGBUS (docs/security.md).
    execFileSync('chattr', ['+i', ...dbFiles()]);
    for (let round = 0; round < 3; round++) {
      for (const answer of await event.writes()) assert.deepEqual([answer.status, answer.body], [503, { detail: MSG.databaseNotWritable }]);
    }
    assert.equal((await call(server.baseUrl, 'GET', `/events/${event.eventId}/guests`, { token })).status, 200);
    execFileSync('chattr', ['-i', ...dbFiles()]);
    // A connection opened while the file was read-only is read-only for good: its first write
    // retires it, so at most that one answers 503 before writes go on, without a restart.
    const first = (await event.writes())[0];
    assert.ok(first.status === 201 || (first.status === 503 && first.body.detail === MSG.databaseNotWritable), JSON.stringify(first));
    for (let round = 0; round < 3; round++) assert.deepEqual((await event.writes()).map((r) => r.status), [201, 201, 201]);
    assert.equal(server.child.exitCode, null);
  });
});

describe('a full disk', { skip: mountSkip }, () => {
  let mount: string;
  let server: ServerProcess;
  let token: string;
  const filler = () => path.join(mount, 'filler');

  /** Fills what is left of the file system with one file. */
  function fillDisk(): void {
    const fd = fs.openSync(filler(), 'a');
    const chunk = Buffer.alloc(64 * 1024, 1);
    try {
      for (;;) fs.writeSync(fd, chunk);
    } catch (err) {
      assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
    } finally {
      fs.closeSync(fd);
    }
  }

  before(async () => {
    mount = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=96m', 'tmpfs', mount]);
    // Its temporary folder on the same small disk: uploads are spooled there.
    server = await startServeProcess({ DOORLIST_DB: path.join(mount, 'doorlist.sqlite'), TMPDIR: mount, DOORLIST_LOG_LEVEL: 'warn' });
    token = await signIn(server.baseUrl);
  });
  after(async () => {
    await server?.stop();
    if (mount) execFileSync('umount', [mount]);
    fs.rmSync(mount, { recursive: true, force: true });
  });

  const importCsv = async (eventId: number, from: number) => {
    const rows = Array.from({ length: 5_000 }, (_, i) => `Guest,${from + i},g${from + i}@example.test,FULL-${from + i}`);
    const res = await fetch(`${server.baseUrl}/events/${eventId}/guests.csv`, { method: 'POST', headers: { 'content-type': 'text/csv', authorization: `Token ${token}` }, body: `first_name,last_name,email,barcode\n${rows.join('\n')}\n` });
    return { status: res.status, body: (await res.json()) as any };
  };
  const importEventFile = async () => {
    // Opens as gzip does, so it passes the first-bytes check and is spooled onto the full disk.
    const body = new Uint8Array(256 * 1024);
    body.set([0x1f, 0x8b]);
    const res = await fetch(`${server.baseUrl}/events/import`, { method: 'POST', headers: { 'content-type': 'application/gzip', authorization: `Token ${token}` }, body });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('answers 503 with what staff can do, and writes again as soon as there is room', async () => {
    const event = await eventOn(server, token);
    assert.deepEqual((await event.writes()).map((r) => r.status), [201, 201, 201]);
    fillDisk();
    const refused = await importCsv(event.eventId, 0);
    assert.deepEqual([refused.status, refused.body], [503, { detail: MSG.databaseFull }]);
    const upload = await importEventFile();
    assert.deepEqual([upload.status, upload.body], [503, { detail: MSG.tempDiskFull }]);
    assert.equal((await call(server.baseUrl, 'GET', `/events/${event.eventId}/guests?page_size=1`, { token })).body.count, 1);
    fs.rmSync(filler());
    const imported = await importCsv(event.eventId, 0);
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    assert.deepEqual((await event.writes()).map((r) => r.status), [201, 201, 201]);
    assert.equal(server.child.exitCode, null);
  });
});

describe('a fault the code did not handle', () => {
  for (const fault of ['exception', 'rejection'] as const) {
    it(`ends npm run serve on an unhandled ${fault} with its cause on stderr and in the log, exit ${FATAL_EXIT_CODE}`, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-fatal-'));
      const child = spawn(process.execPath, ['--import', 'tsx', '--import', './test/helpers/injected-fault.ts', SERVE_ENTRY], {
        cwd: ROOT,
        env: { ...process.env, DOORLIST_DB: path.join(dir, 'doorlist.sqlite'), DOORLIST_PORT: '0', DOORLIST_LOG_LEVEL: 'info', DOORLIST_TEST_FAULT: fault },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        await eventually('the ready line', async () => (stdout.includes('Doorlist listening on') ? true : undefined));
        child.kill('SIGUSR2');
        assert.equal(await exited, FATAL_EXIT_CODE);
        const origin = fault === 'exception' ? 'uncaughtException' : 'unhandledRejection';
        assert.match(stderr, new RegExp(`^Doorlist stopped by a fault \\(${origin}\\): Error: injected ${fault}\\n    at `));
        const fatal = stdout.split('\n').filter((line) => line.includes('"level":60')).map((line) => JSON.parse(line));
        assert.equal(fatal.length, 1);
        assert.equal(fatal[0].msg, 'Doorlist stopped by a fault');
        assert.equal(fatal[0].err.message, `injected ${fault}`);
      } finally {
        child.kill('SIGKILL');
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('DOORLIST_ADMIN_PASSWORD changed between starts', () => {
  it("revokes the administrator's tokens: a leaked one answers 401 from the first request", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-admin-reset-'));
    const db = path.join(dir, 'doorlist.sqlite');
    try {
      const first = await startServeProcess({ DOORLIST_DB: db });
      const leaked = await signIn(first.baseUrl);
      assert.equal((await call(first.baseUrl, 'GET', '/groups', { token: leaked })).status, 200);
      await first.stop();

      const second = await startServeProcess({ DOORLIST_DB: db, DOORLIST_ADMIN_PASSWORD: 'a new admin password' });
      try {
        assert.deepEqual(await call(second.baseUrl, 'GET', '/groups', { token: leaked }), { status: 401, body: { detail: MSG.sessionExpired } });
        assert.equal((await call(second.baseUrl, 'POST', '/apps/api/auth', { body: ADMIN })).status, 400);
        const fresh = await call(second.baseUrl, 'POST', '/apps/api/auth', { body: { username: ADMIN.username, password: 'a new admin password' } });
        assert.equal((await call(second.baseUrl, 'GET', '/groups', { token: fresh.body.token })).status, 200);
      } finally {
        await second.stop();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
