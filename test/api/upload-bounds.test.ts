import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { CSV_MAX_COLUMNS } from '../../server/services/guest-csv-import';
import { MAX_CONCURRENT_SYNC_PUSHES, MAX_CONCURRENT_UPLOADS, SMALL_PUSH_BYTES, UPLOAD_RETRY_AFTER_S, UPLOADS_PER_CALLER } from '../../server/http/upload-slots';
import { GZIP_MAGIC } from '../../server/http/upload-body';
import { TestServer } from '../helpers/server';
import { createEvent, createGroup, createRoleKey } from '../helpers/fixtures';
import { eventually } from '../helpers/eventually';

describe('upload bounds', () => {
  let server: TestServer;
  let eventId: number;
  let groupId: number;
  before(async () => {
    server = await TestServer.start();
    groupId = await createGroup(server);
    eventId = await createEvent(server, groupId);
    assert.equal((await server.post(`/events/${eventId}/registration_types`, { type: 'ticket', name: 'General', description: '' })).status, 201);
  });
  after(() => server?.stop());

  const postCsv = (csv: string) => server.request('POST', `/events/${eventId}/guests.csv`, { rawBody: csv, headers: { 'content-type': 'text/csv' } });

  describe('POST /events/:event_id/guests.csv with very wide rows', () => {
    it(`answers 400 for a header row of more than ${CSV_MAX_COLUMNS} columns`, async () => {
      const header = ['first_name', 'last_name', 'email', ...Array.from({ length: 5000 }, (_, i) => `c${i}`)].join(',');
      const res = await postCsv(`${header}\nAda,Lovelace,ada@example.test\n`);
      assert.deepEqual([res.status, res.body], [400, { detail: MSG.csvTooManyColumns(1, CSV_MAX_COLUMNS) }]);
    });

    it('answers 400 naming the row whose cells run past the bound, and writes nothing', async () => {
      const wide = `Ada,Lovelace,ada@example.test${',x'.repeat(CSV_MAX_COLUMNS)}`;
      const res = await postCsv(`first_name,last_name,email\nGrace,Hopper,grace@example.test\n${wide}\n`);
      assert.deepEqual([res.status, res.body], [400, { detail: MSG.csvTooManyColumns(3, CSV_MAX_COLUMNS) }]);
      assert.equal((await server.get(`/events/${eventId}/guests?page_size=1`)).body.count, 0);
    });
  });

  describe('uploads at once', () => {
    it(`answers 503 with Retry-After past ${MAX_CONCURRENT_UPLOADS} uploads at once from different callers, and takes uploads again once they end`, async () => {
      const keys = await Promise.all(Array.from({ length: MAX_CONCURRENT_UPLOADS + 1 }, (_, i) => createRoleKey(server, groupId, 'manager', `importer ${i}`)));
      const probeKey = keys.pop()!;
      const startSlow = (i: number) => slowUpload(server, `/events/${eventId}/guests.csv`, keys[i], 'text/csv', 'first_name,last_name,email,barcode\n');
      let slow = keys.map((_, i) => startSlow(i));
      const busy = () => server.request('POST', '/events/import', { token: probeKey, rawBody: Buffer.alloc(10), headers: { 'content-type': 'application/gzip' } });
      const refused = await eventually('a refusal', async () => {
        const res = await busy();
        if (res.status === 503) return res;
        // A slow upload that reached its handler while this probe held a slot was refused itself: start it again.
        slow = await Promise.all(slow.map(async (upload, i) => ((await answered(upload))?.status === 503 ? startSlow(i) : upload)));
        return undefined;
      }, 20_000, 0);
      assert.deepEqual(refused.body, { detail: MSG.uploadsBusy(MAX_CONCURRENT_UPLOADS) });
      assert.equal(refused.headers.get('retry-after'), String(UPLOAD_RETRY_AFTER_S));
      const csv = await postCsv('first_name,last_name,email\nAda,Lovelace,ada@example.test\n');
      assert.equal(csv.status, 503);
      // Other requests go on meanwhile.
      assert.equal((await server.get(`/events/${eventId}`)).status, 200);
      for (const [i, upload] of slow.entries()) upload.finish(`Slow,${i},slow${i}@example.test,SLOW-${i}\n`);
      for (const upload of slow) assert.equal((await upload.answer).status, 201);
      assert.equal((await postCsv('first_name,last_name,email\nAda,Lovelace,ada@example.test\n')).status, 201);
    });

    it('answers 429 to a second upload of the same key while its first is arriving; other keys go on', async () => {
      const key = await createRoleKey(server, groupId, 'manager', 'one at a time');
      const other = await createRoleKey(server, groupId, 'manager', 'another importer');
      const csvPath = `/events/${eventId}/guests.csv`;
      // Two uploads of the key, neither ending: whichever takes the slot second is refused at once.
      const uploads = [slowUpload(server, csvPath, key, 'text/csv', 'first_name,last_name,email\n'), slowUpload(server, csvPath, key, 'text/csv', 'first_name,last_name,email\n')];
      const first = await Promise.race(uploads.map(async (upload, i) => ({ i, ...(await upload.answer) })));
      const refused = { status: first.status, body: first.body };
      assert.deepEqual(refused, { status: 429, body: { detail: MSG.uploadsBusyForCaller(UPLOADS_PER_CALLER.import) } });
      const upload = uploads[1 - first.i];
      const byOther = await server.request('POST', `/events/${eventId}/guests.csv`, { token: other, rawBody: 'first_name,last_name,email\nCy,Other,cy@example.test\n', headers: { 'content-type': 'text/csv' } });
      assert.equal(byOther.status, 201, JSON.stringify(byOther.body));
      upload.finish('Al,First,al@example.test\n');
      assert.equal((await upload.answer).status, 201);
      const again = await server.request('POST', csvPath, { token: key, rawBody: 'first_name,last_name,email\nBo,Second,bo@example.test\n', headers: { 'content-type': 'text/csv' } });
      assert.equal(again.status, 201, JSON.stringify(again.body));
    });

    it("takes a follower's push while every import slot is held", async () => {
      const keys = await Promise.all(Array.from({ length: MAX_CONCURRENT_UPLOADS }, (_, i) => createRoleKey(server, groupId, 'manager', `holder ${i}`)));
      const exported = await fetch(`${server.baseUrl}/events/${eventId}/export`, { headers: { authorization: `Token ${server.adminToken}` } });
      const file = Buffer.from(await exported.arrayBuffer());
      const startSlow = (i: number) => slowUpload(server, '/events/import', keys[i], 'application/gzip', file.subarray(0, 100));
      let slow = keys.map((_, i) => startSlow(i));
      const probe = () => server.request('POST', `/events/${eventId}/guests.csv`, { rawBody: 'first_name,last_name,email\n', headers: { 'content-type': 'text/csv' } });
      await eventually('the import slots filled', async () => {
        if ((await probe()).status === 503) return true;
        slow = await Promise.all(slow.map(async (upload, i) => ((await answered(upload))?.status === 503 ? startSlow(i) : upload)));
        return undefined;
      }, 20_000, 0);
      const push = await server.request('POST', `/events/${eventId}/sync/changes`, { rawBody: file, headers: { 'content-type': 'application/gzip' } });
      assert.equal(push.status, 200, JSON.stringify(push.body));
      for (const upload of slow) upload.finish(file.subarray(100));
      for (const upload of slow) assert.equal((await upload.answer).status, 200);
    });
  });

  describe('POST /events/:event_id/sync/changes at once', () => {
    const changes = `/events/${'{id}'}/sync/changes`;
    const pushPath = () => changes.replace('{id}', String(eventId));
    /** A follower's usual push: a delta of the event (a few records), far under SMALL_PUSH_BYTES. */
    async function smallPush(): Promise<Buffer> {
      const since = encodeURIComponent(new Date(Date.now() - 60_000).toISOString());
      const res = await fetch(`${server.baseUrl}/events/${eventId}/export?since=${since}`, { headers: { authorization: `Token ${server.adminToken}` } });
      const file = Buffer.from(await res.arrayBuffer());
      assert.ok(file.length < SMALL_PUSH_BYTES);
      return file;
    }
    /** Every slot of the pushes' pool held by slow (chunked, so not small) pushes of other keys, two a key. */
    async function holdPushPool(file: Buffer) {
      const keys = await Promise.all(Array.from({ length: MAX_CONCURRENT_SYNC_PUSHES / UPLOADS_PER_CALLER.sync }, (_, i) => createRoleKey(server, groupId, 'door', `slow laptop ${i}`)));
      const startSlow = (i: number) => slowUpload(server, pushPath(), keys[Math.floor(i / UPLOADS_PER_CALLER.sync)], 'application/gzip', file.subarray(0, 10));
      let slow = Array.from({ length: MAX_CONCURRENT_SYNC_PUSHES }, (_, i) => startSlow(i));
      const probeKey = await createRoleKey(server, groupId, 'door', 'probe');
      await eventually('the push slots filled', async () => {
        const probe = slowUpload(server, pushPath(), probeKey, 'application/gzip', file.subarray(0, 10));
        const answer = await answered(probe);
        if (answer?.status === 503) return true;
        probe.finish(file.subarray(10));
        await probe.answer;
        slow = await Promise.all(slow.map(async (upload, i) => ((await answered(upload))?.status === 503 ? startSlow(i) : upload)));
        return undefined;
      }, 20_000, 0);
      return slow;
    }

    it("takes the small pushes of many laptops sharing one door key, past the pool's size: they wait their turn instead of a 429 or 503", async () => {
      const file = await smallPush();
      const shared = await createRoleKey(server, groupId, 'door', 'the venue\'s laptops');
      const slow = await holdPushPool(file);
      const laptops = 3 * MAX_CONCURRENT_SYNC_PUSHES;
      const pushes = Array.from({ length: laptops }, () => server.request('POST', pushPath(), { token: shared, rawBody: file, headers: { 'content-type': 'application/gzip' } }));
      // The pool is full: they wait (none is refused at once)...
      const early = await Promise.race([Promise.any(pushes), new Promise<undefined>((resolve) => setTimeout(resolve, 100))]);
      assert.equal(early, undefined, JSON.stringify(early?.body));
      // ...and go in as slots come free.
      for (const upload of slow) upload.finish(file.subarray(10));
      for (const upload of slow) assert.equal((await upload.answer).status, 200);
      const answers = await Promise.all(pushes);
      assert.deepEqual(answers.map((a) => a.status), Array(laptops).fill(200));
    });

    it(`still bounds one key's large pushes to ${UPLOADS_PER_CALLER.sync} at once (429), whatever it sends`, async () => {
      const file = await smallPush();
      const hostile = await createRoleKey(server, groupId, 'door', 'hostile');
      const uploads = Array.from({ length: 6 }, () => slowUpload(server, pushPath(), hostile, 'application/gzip', file.subarray(0, 10)));
      const refused = await Promise.all(uploads.map(async (upload) => ({ upload, answer: await answered(upload) })));
      await eventually('the refusals', async () => {
        for (const r of refused) r.answer ??= await answered(r.upload);
        return refused.filter((r) => r.answer).length >= uploads.length - UPLOADS_PER_CALLER.sync ? true : undefined;
      }, 20_000, 0);
      const answered429 = refused.filter((r) => r.answer);
      assert.equal(answered429.length, uploads.length - UPLOADS_PER_CALLER.sync);
      for (const r of answered429) assert.deepEqual(r.answer, { status: 429, body: { detail: MSG.uploadsBusyForCaller(UPLOADS_PER_CALLER.sync) } });
      for (const r of refused.filter((x) => !x.answer)) {
        r.upload.finish(file.subarray(10));
        assert.equal((await r.upload.answer).status, 200);
      }
    });
  });

  describe('POST /events/import with a body that is not gzip', () => {
    it('answers 400 on its first bytes, before the rest of the body is sent', async () => {
      const upload = slowUpload(server, '/events/import', server.adminToken, 'application/gzip', 'first_name,last_name\n');
      // The body never ends: only a refusal on its first bytes answers at all.
      assert.deepEqual(await upload.answer, { status: 400, body: { detail: MSG.eventFileForeign } });
    });

    it(`answers 400 ${MSG.eventFileForeign} to a follower's push that is not gzip`, async () => {
      const upload = slowUpload(server, `/events/${eventId}/sync/changes`, server.adminToken, 'application/octet-stream', 'PK\x03\x04 a zip');
      assert.deepEqual(await upload.answer, { status: 400, body: { detail: MSG.eventFileForeign } });
    });
  });
});

describe('upload pace', () => {
  let server: TestServer;
  let eventId: number;
  before(async () => {
    server = await TestServer.start({ uploadIdleTimeoutMs: 200, uploadGraceMs: 300, uploadMinBytesPerSecond: 2000 });
    eventId = await createEvent(server, await createGroup(server));
    assert.equal((await server.post(`/events/${eventId}/registration_types`, { type: 'ticket', name: 'General', description: '' })).status, 201);
  });
  after(() => server?.stop());

  it('answers 408 to an upload whose body stops arriving, and frees its slot', async () => {
    const upload = slowUpload(server, `/events/${eventId}/guests.csv`, server.adminToken, 'text/csv', 'first_name,last_name,email\n');
    assert.deepEqual(await upload.answer, { status: 408, body: { detail: MSG.uploadIdle(0.2) } });
    const next = await server.request('POST', `/events/${eventId}/guests.csv?dry_run=true`, { rawBody: 'first_name,last_name,email\nAda,Lovelace,ada@example.test\n', headers: { 'content-type': 'text/csv' } });
    assert.equal(next.status, 200, JSON.stringify(next.body));
  });

  it('answers 408 to an upload that trickles below the minimum rate though bytes keep coming, and frees its slot', async () => {
    const upload = slowUpload(server, '/events/import', server.adminToken, 'application/gzip', GZIP_MAGIC);
    // A byte every 20 ms: never idle for 200 ms, but 50 bytes a second against a minimum of 2,000.
    const trickle = setInterval(() => upload.write('x'), 20);
    try {
      assert.deepEqual(await upload.answer, { status: 408, body: { detail: MSG.uploadTooSlow(2000) } });
    } finally {
      clearInterval(trickle);
    }
    const next = await server.request('POST', '/events/import', { rawBody: Buffer.from('not gzip'), headers: { 'content-type': 'application/gzip' } });
    assert.deepEqual([next.status, next.body], [400, { detail: MSG.eventFileForeign }]);
  });
});

/** An upload whose body is still arriving: it holds its upload slot until `finish`. */
function slowUpload(server: TestServer, pathName: string, token: string, contentType: string, first: string | Buffer) {
  const url = new URL(`${server.baseUrl}${pathName}`);
  const req = http.request(url, { method: 'POST', agent: false, headers: { authorization: `Token ${token}`, 'content-type': contentType, 'transfer-encoding': 'chunked' } });
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
  req.write(first);
  return {
    answer,
    write: (more: string | Buffer) => req.writable && req.write(more),
    finish: (rest: string | Buffer) => req.end(rest),
  };
}

/** The upload's answer if it has one already (within a few milliseconds), else undefined. */
function answered(upload: ReturnType<typeof slowUpload>) {
  return Promise.race([upload.answer, new Promise<undefined>((resolve) => setTimeout(resolve, 10))]);
}
