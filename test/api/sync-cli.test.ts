import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createApiKey, createEvent, createGroup } from '../helpers/fixtures';
import { TestServer } from '../helpers/server';
import { eventually } from '../helpers/eventually';
import { CLI_ENTRY } from '../helpers/built-app';

const ROOT = path.resolve(__dirname, '..', '..');

/** `npm run doorlist -- <args>` with `stdin` typed in: exit code, stdout and stderr. */
function doorlist(args: string[], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], { cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

describe('npm run doorlist -- follow / sync-status / unfollow (the command line)', () => {
  let central: TestServer;
  let laptop: TestServer;
  let remoteEvent: number;
  let key: string;
  let group: number;

  before(async () => {
    [central, laptop] = await Promise.all([TestServer.start(), TestServer.start()]);
    const centralGroup = await createGroup(central, { name: 'Central' });
    remoteEvent = await createEvent(central, centralGroup, { name: 'Followed from the shell' });
    key = await createApiKey(central, centralGroup);
    group = await createGroup(laptop, { name: 'Shell laptop' });
  });
  after(async () => {
    await Promise.all([central.stop(), laptop.stop()]);
  });

  it('follows with the key read from stdin, and the running server takes it up', async () => {
    const res = await doorlist(['follow', '--url', central.baseUrl, '--key', '-', '--event', String(remoteEvent), '--group', String(group), '--db', laptop.config.db], key + '\n');
    assert.equal(res.code, 0, res.stderr);
    const match = /^Following upstream event (\d+) as event (\d+) here \(sync (\d+)\)\.\n$/.exec(res.stdout);
    assert.ok(match, res.stdout);
    assert.equal(Number(match[1]), remoteEvent);
    const eventId = Number(match[2]);
    const status = await eventually('the first push', async () => ((res) => (res.body.last_push_at ? res : undefined))(await laptop.get(`/events/${eventId}/sync`)));
    assert.equal(status.body.state, 'ok');
    assert.ok(status.body.last_push_at);

    const shown = await doorlist(['sync-status', '--event', String(eventId), '--db', laptop.config.db]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`^Event ${eventId} follows ${central.baseUrl.replace(/[./]/g, '\\$&')} \\(event ${remoteEvent}\\): ok\\n`));
    assert.match(shown.stdout, /Last pull \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d UTC, last push \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d UTC, 0 change\(s\) waiting\./);
    assert.ok(!shown.stdout.includes(key));

    const stopped = await doorlist(['unfollow', '--event', String(eventId), '--db', laptop.config.db]);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(stopped.stdout, `Event ${eventId} is no longer followed; its data stays here.\n`);
    assert.equal((await laptop.get(`/events/${eventId}/sync`)).status, 404);
    assert.equal((await laptop.get(`/events/${eventId}`)).status, 200);
  });

  it('exits 1 with one line when the upstream refuses the key, the event is not followed, or a fingerprint or address is malformed', async () => {
    const refused = await doorlist(['follow', '--url', central.baseUrl, '--key', 'dl_wrong', '--event', String(remoteEvent), '--group', String(group), '--db', laptop.config.db]);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'Follow refused: key: The upstream refused this key.\n');
    const missing = await doorlist(['sync-status', '--event', '999', '--db', laptop.config.db]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'Event 999 is not followed.\n');
    const fingerprint = await doorlist(['follow', '--url', central.baseUrl, '--key', key, '--event', String(remoteEvent), '--fingerprint', 'AB:CD', '--db', laptop.config.db]);
    assert.equal(fingerprint.code, 1);
    assert.equal(fingerprint.stderr, `Follow refused: fingerprint: ${MSG.syncFingerprintFormat}\n`);
    const scheme = await doorlist(['follow', '--url', 'ftp://central/api/v1', '--key', key, '--event', String(remoteEvent), '--db', laptop.config.db]);
    assert.equal(scheme.code, 1);
    assert.equal(scheme.stderr, `Follow refused: url: ${MSG.syncUrlScheme}\n`);
    const usage = await doorlist(['follow', '--db', laptop.config.db]);
    assert.equal(usage.code, 1);
    assert.equal(usage.stderr, 'follow needs --url, --key and --event.\n');
  });
});
