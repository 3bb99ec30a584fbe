import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { EVENT_FILE_FORMAT, EVENT_FILE_VERSION } from '../../server/event-file/format';
import { SERVE_ENTRY } from '../helpers/built-app';

const ROOT = path.resolve(__dirname, '..', '..');
const ADMIN = { username: 'bomb-admin', password: 'bomb-admin-secret' };
// How fast and in how much memory a bomb is refused are figures of `npm run bench` (section
// memory); here, that it is refused, writes nothing and other requests are answered meanwhile.

const HEADER = JSON.stringify({
  format: EVENT_FILE_FORMAT,
  version: EVENT_FILE_VERSION,
  station: 'bomb',
  exported_at: '2026-11-23T00:00:00.000Z',
  event: { uid: '00000000-0000-4000-8000-000000000000', name: 'Bomb' },
  tables: ['events'],
  counts: { events: 1 },
  checksum: { algorithm: 'sha256', location: 'trailer', covers: 'every line' },
});

/**
 * A valid header line, then `copies` MB of `piece` repeated: gzip members concatenated, so
 * the file is about a kilobyte per inflated megabyte, as a real bomb is.
 */
function bomb(piece: string, copies: number): Buffer {
  const megabyte = zlib.gzipSync(Buffer.alloc(1 << 20, piece), { level: 9 });
  return Buffer.concat([zlib.gzipSync(`${HEADER}\n`), ...Array.from({ length: copies }, () => megabyte)]);
}

describe('POST /events/import of a gzip bomb (a real server process)', () => {
  let child: ChildProcess;
  let baseUrl: string;
  let token: string;
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-bomb-'));
    child = spawn(process.execPath, [SERVE_ENTRY], {
      cwd: ROOT,
      env: { ...process.env, DOORLIST_DB: path.join(dir, 'doorlist.sqlite'), DOORLIST_PORT: '0', DOORLIST_LOG_LEVEL: 'silent', DOORLIST_ADMIN_USERNAME: ADMIN.username, DOORLIST_ADMIN_PASSWORD: ADMIN.password },
    });
    baseUrl = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk) => {
        out += chunk;
        const match = /Doorlist listening on (http:\/\/\S+)/.exec(out);
        if (match) resolve(`${match[1]}/api/v1`);
      });
      child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
    });
    const res = await fetch(`${baseUrl}/apps/api/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    token = ((await res.json()) as { token: string }).token;
  });
  after(() => {
    child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Sends the file while another client keeps listing events; answers what each saw. */
  async function upload(file: Buffer) {
    const headers = { authorization: `Token ${token}` };
    let uploading = true;
    let others = 0;
    const poll = (async () => {
      while (uploading) {
        const res = await fetch(`${baseUrl}/events`, { headers });
        assert.equal(res.status, 200);
        await res.arrayBuffer();
        others++;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const res = await fetch(`${baseUrl}/events/import`, { method: 'POST', headers: { ...headers, 'content-type': 'application/gzip' }, body: new Uint8Array(file) });
    const body = await res.json();
    uploading = false;
    await poll;
    const events = (await (await fetch(`${baseUrl}/events`, { headers })).json()) as { count: number };
    return { status: res.status, body, others, events: events.count };
  }

  it('answers 400 to one 2 GB line, holding no one up and writing nothing', async () => {
    const file = bomb('a', 2048);
    assert.ok(file.length < 4 << 20, `${file.length} bytes`);
    const seen = await upload(file);
    assert.equal(seen.status, 400);
    assert.deepEqual(seen.body, { detail: MSG.eventFileLineTooLong(1) });
    assert.ok(seen.others > 0);
    assert.equal(seen.events, 0);
  });

  it('answers 400 to 2 GB of short lines: far more than the file\'s size allows', async () => {
    const file = bomb('}\n', 2048);
    const seen = await upload(file);
    assert.equal(seen.status, 400);
    // A file may unpack to 64 times its size and 16 MB more: here about 150 MB.
    assert.deepEqual(seen.body, { detail: MSG.eventFileInflatesTooMuch(Math.round((file.length * 64 + (16 << 20)) / 2 ** 20)) });
    assert.ok(seen.others > 0);
    assert.equal(seen.events, 0);
  });
});
