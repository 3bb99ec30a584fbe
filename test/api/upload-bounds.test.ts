import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { CSV_MAX_COLUMNS } from '../../server/services/guest-csv-import';
import { MAX_CONCURRENT_UPLOADS, UPLOAD_RETRY_AFTER_S } from '../../server/http/upload-slots';
import { TestServer } from '../helpers/server';
import { createEvent, createGroup } from '../helpers/fixtures';
import { eventually } from '../helpers/eventually';

describe('upload bounds', () => {
  let server: TestServer;
  let eventId: number;
  before(async () => {
    server = await TestServer.start();
    eventId = await createEvent(server, await createGroup(server));
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
    /** A CSV upload whose body is still arriving: it holds an upload slot until `finish`. */
    function slowUpload(n: number) {
      const url = new URL(`${server.baseUrl}/events/${eventId}/guests.csv`);
      const req = http.request(url, { method: 'POST', agent: false, headers: { authorization: `Token ${server.adminToken}`, 'content-type': 'text/csv', 'transfer-encoding': 'chunked' } });
      const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        });
        req.on('error', reject);
      });
      req.write('first_name,last_name,email,barcode\n');
      return { answer, finish: () => req.end(`Slow,${n},slow${n}@example.test,SLOW-${n}\n`) };
    }

    it(`answers 503 with Retry-After past ${MAX_CONCURRENT_UPLOADS} uploads at once, and takes uploads again once they end`, async () => {
      let slow = Array.from({ length: MAX_CONCURRENT_UPLOADS }, (_, i) => slowUpload(i));
      const busy = () => server.request('POST', '/events/import', { rawBody: Buffer.alloc(10), headers: { 'content-type': 'application/gzip' } });
      /** The upload's answer if it has one already (within a few milliseconds), else undefined. */
      const answered = (upload: ReturnType<typeof slowUpload>) => Promise.race([upload.answer, new Promise<undefined>((resolve) => setTimeout(resolve, 10))]);
      const refused = await eventually('a refusal', async () => {
        const res = await busy();
        if (res.status === 503) return res;
        // A slow upload that reached its handler while this probe held a slot was refused itself: start it again.
        slow = await Promise.all(slow.map(async (upload, i) => ((await answered(upload))?.status === 503 ? slowUpload(i) : upload)));
        return undefined;
      }, 20_000, 0);
      assert.deepEqual(refused.body, { detail: MSG.uploadsBusy(MAX_CONCURRENT_UPLOADS) });
      assert.equal(refused.headers.get('retry-after'), String(UPLOAD_RETRY_AFTER_S));
      const csv = await postCsv('first_name,last_name,email\nAda,Lovelace,ada@example.test\n');
      assert.equal(csv.status, 503);
      // Other requests go on meanwhile.
      assert.equal((await server.get(`/events/${eventId}`)).status, 200);
      for (const upload of slow) upload.finish();
      for (const upload of slow) assert.equal((await upload.answer).status, 201);
      assert.equal((await postCsv('first_name,last_name,email\nAda,Lovelace,ada@example.test\n')).status, 201);
    });
  });
});
