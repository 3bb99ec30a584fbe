import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FATAL_EXIT_CODE } from '../../server/fatal-faults';
import { SafeDestination } from '../../server/log-destination';
import { ADMIN } from '../helpers/server';
import { call, signIn } from '../helpers/server-process';
import { eventually } from '../helpers/eventually';
import { SERVE_ENTRY } from '../helpers/built-app';

const ROOT = path.resolve(__dirname, '..', '..');

/** A tiny tmpfs, or why there cannot be one here. */
function mountTinyDisk(dir: string): string | undefined {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs for the full disk needs root';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return `mount -t tmpfs failed: ${(err as Error).message}`;
  }
}

/** Fills the disk of `dir` to the last byte, the slack of its files' last pages too; returns the filler's path. */
function fillDisk(dir: string): string {
  const filler = path.join(dir, 'filler');
  const fd = fs.openSync(filler, 'w');
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) fs.writeSync(fd, block);
  } catch (err) {
    assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
  }
  // Partial blocks too: nothing is left for even one log line.
  try {
    for (;;) fs.writeSync(fd, block, 0, 1);
  } catch {
    // full
  }
  fs.closeSync(fd);
  // A file's last page has room of its own: the logs get empty lines up to its end.
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.log'))) {
    const log = fs.openSync(path.join(dir, name), 'a');
    try {
      for (;;) fs.writeSync(log, '\n');
    } catch {
      // full
    } finally {
      fs.closeSync(log);
    }
  }
  return filler;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-log-full-'));
const disk = path.join(tmp, 'disk');
fs.mkdirSync(disk);
const skip = mountTinyDisk(disk);
if (skip) console.log(`# skipping the full log disk: ${skip}`);

/** `npm run serve` (with the injected fault) logging on stdout to a file on the tiny disk. */
function startLoggingToDisk(name: string) {
  const logFile = path.join(disk, `${name}.log`);
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './test/helpers/injected-fault.ts', SERVE_ENTRY], {
    cwd: ROOT,
    env: {
      ...process.env,
      DOORLIST_DB: path.join(tmp, `${name}.sqlite`),
      DOORLIST_PORT: '0',
      DOORLIST_LOG_LEVEL: 'info',
      DOORLIST_ADMIN_USERNAME: ADMIN.username,
      DOORLIST_ADMIN_PASSWORD: ADMIN.password,
      DOORLIST_TEST_FAULT: 'exception',
    },
    stdio: ['ignore', out, 'pipe'],
  });
  fs.closeSync(out);
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const log = () => fs.readFileSync(logFile, 'utf8');
  return { child, exited, log, stderr: () => stderr };
}

describe('a log on a full disk', { skip }, () => {
  after(() => {
    if (!skip) execFileSync('umount', [disk]);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  let server: ReturnType<typeof startLoggingToDisk>;
  let baseUrl: string;
  let filler: string;
  before(async () => {
    server = startLoggingToDisk('serve');
    baseUrl = await eventually('the ready line in the log', () => /Doorlist listening on (http:\/\/\S+)/.exec(server.log())?.[1]);
    baseUrl += '/api/v1';
    filler = fillDisk(disk);
  });
  after(() => server?.child.kill('SIGKILL'));

  it('keeps answering when its log lines cannot be written, says so once on stderr, and counts them when it can write again', async () => {
    const token = await signIn(baseUrl);
    for (let i = 0; i < 20; i++) assert.equal((await call(baseUrl, 'GET', '/groups', { token })).status, 200);
    await eventually('the note on stderr', () => (server.stderr().includes("Doorlist's log cannot be written (ENOSPC)") ? true : undefined));
    assert.equal(server.stderr().match(/cannot be written/g)?.length, 1);
    fs.rmSync(filler);
    assert.equal((await call(baseUrl, 'GET', '/groups', { token })).status, 200);
    const note = await eventually('the count of dropped lines in the log', () => server.log().split('\n').find((line) => line.includes('"dropped"')));
    assert.ok(JSON.parse(note).dropped >= 20, note);
    // The note goes to stderr, a pipe read apart from the log file: it may arrive after the count.
    await eventually('the note of recovery on stderr', () => (/Doorlist's log can be written again; \d+ lines were dropped meanwhile\./.test(server.stderr()) ? true : undefined));
    filler = fillDisk(disk);
  });

  it(`ends on a fault with the cause on stderr and exit ${FATAL_EXIT_CODE}, though the fatal line cannot be written`, async () => {
    assert.equal((await call(baseUrl, 'GET', '/groups', { token: await signIn(baseUrl) })).status, 200);
    server.child.kill('SIGUSR2');
    assert.equal(await server.exited, FATAL_EXIT_CODE);
    assert.match(server.stderr(), /Doorlist stopped by a fault \(uncaughtException\): Error: injected exception\n {4}at /);
    assert.doesNotMatch(server.log(), /"level":60/);
  });

  it('stops on SIGTERM while its log cannot be written', async () => {
    fs.rmSync(filler, { force: true });
    const second = startLoggingToDisk('second');
    try {
      const url = await eventually('the ready line in the log', () => /Doorlist listening on (http:\/\/\S+)/.exec(second.log())?.[1]);
      filler = fillDisk(disk);
      assert.equal((await call(`${url}/api/v1`, 'GET', '/groups', { token: await signIn(`${url}/api/v1`) })).status, 200);
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0);
    } finally {
      second.child.kill('SIGKILL');
    }
  });
});

describe('SafeDestination', () => {
  it('drops and counts what it cannot write, says so once, and never throws from flushSync', async () => {
    const notes: string[] = [];
    const readOnly = fs.openSync(os.devNull, 'r');
    try {
      const destination = new SafeDestination(readOnly, (text) => notes.push(text));
      destination.write('{"msg":"one"}\n');
      destination.write('{"msg":"two"}\n');
      destination.flushSync();
      await eventually('both lines dropped', () => (destination.dropped === 2 ? true : undefined));
      assert.deepEqual(notes, ["Doorlist's log cannot be written (EBADF): its lines are dropped, and counted, until it can.\n"]);
    } finally {
      fs.closeSync(readOnly);
    }
  });

  it('drops lines past its backlog rather than holding them', () => {
    const devNull = fs.openSync(os.devNull, 'w');
    const destination = new SafeDestination(devNull, () => undefined, 15);
    // The first is being written, the second waits, the third finds the backlog full.
    for (let i = 0; i < 3; i++) destination.write('0123456789\n');
    assert.equal(destination.dropped, 1);
    destination.flushSync();
    fs.closeSync(devNull);
  });
});
