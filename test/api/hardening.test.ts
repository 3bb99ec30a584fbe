import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { TestServer } from '../helpers/server';
import { createEvent, createGroup } from '../helpers/fixtures';
import { runServe } from '../helpers/server-process';
import { writeDamagedDatabase } from '../helpers/damaged-database';
import { createTempFile, privateTempDir } from '../../server/temp-files';
import { MSG } from '../../core/messages';

const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe('security headers and errors on every path', () => {
  let server: TestServer;
  let eventId: number;
  before(async () => {
    server = await TestServer.start();
    eventId = await createEvent(server, await createGroup(server));
    const type = await server.post(`/events/${eventId}/registration_types`, { type: 'ticket', name: 'General', description: '' });
    assert.equal(type.status, 201);
    assert.equal((await server.post(`/events/${eventId}/guests`, { first_name: 'Ada', last_name: 'L', email: '', registration_type: type.body.id, barcode: 'HDR-1' })).status, 201);
  });
  after(() => server.stop());

  const expectSecurityHeaders = (headers: Headers, api: boolean) => {
    assert.equal(headers.get('x-content-type-options'), 'nosniff');
    assert.equal(headers.get('x-frame-options'), 'DENY');
    assert.equal(headers.get('content-security-policy'), "frame-ancestors 'none'");
    if (api) assert.equal(headers.get('cache-control'), 'no-store');
    // Never cached, so never hashed for an ETag either.
    if (api) assert.equal(headers.get('etag'), null);
  };

  it('answers nosniff, no framing and no-store (and no ETag) on API answers: 200, 401, 404, 400 and a scan', async () => {
    expectSecurityHeaders((await server.get('/events')).headers, true);
    expectSecurityHeaders((await server.get('/events', { token: null })).headers, true);
    expectSecurityHeaders((await server.get('/no/such/route')).headers, true);
    expectSecurityHeaders((await server.get('/events?timestamp=nonsense')).headers, true);
    const scan = await server.post(`/events/${eventId}/checkins`, { barcode: 'HDR-1' });
    assert.equal(scan.status, 201, JSON.stringify(scan.body));
    expectSecurityHeaders(scan.headers, true);
  });

  it('answers pages with nosniff and no framing too', async () => {
    const page = await fetch(`${server.running.url}/`);
    expectSecurityHeaders(page.headers, false);
  });

  it('answers a malformed %-escape in any path with JSON, never HTML or a server path', async () => {
    for (const bad of ['/api/v1/events/%zz', '/api/v1/groups/%E0%A4%A', `/api/v1/events/${eventId}/guests/1%`]) {
      const res = await fetch(`${server.running.url}${bad}`, { headers: { authorization: `Token ${server.adminToken}` } });
      assert.equal(res.status, 400, bad);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.deepEqual(await res.json(), { detail: MSG.malformedUrl });
    }
  });

  it('answers GET /events?timestamp= beyond the year 9999 with the field error, not every record', async () => {
    for (const stamp of ['999999999999', '253402300800', '9999-12-31T23:59:59-14:00']) {
      const res = await server.get(`/events?timestamp=${encodeURIComponent(stamp)}`);
      assert.equal(res.status, 400, stamp);
      assert.deepEqual(res.body, { timestamp: [MSG.invalidTimestamp] });
    }
    const latest = await server.get('/events?timestamp=9999-12-31T23:59:59');
    assert.equal(latest.status, 200);
    assert.equal(latest.body.count, 0);
  });
});

describe('codes and names as stored and matched', () => {
  let server: TestServer;
  let eventId: number;
  let typeId: number;
  before(async () => {
    server = await TestServer.start();
    eventId = await createEvent(server, await createGroup(server));
    typeId = (await server.post(`/events/${eventId}/registration_types`, { type: 'ticket', name: 'General', description: '' })).body.id;
  });
  after(() => server.stop());

  it('POST /events/:id/guests stores NFC without zero-width characters; the scan matches every spelling', async () => {
    // "CAFÉ-7" with a combining accent and a zero-width space; the name with a BOM and a decomposed ë.
    const created = await server.post(`/events/${eventId}/guests`, { first_name: '\uFEFFZoe\u0308', last_name: 'N\u200Bgo', email: '', registration_type: typeId, barcode: 'CAFE\u0301-7\u200B', nfc_tag: '04:A1\u200D:B2' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const guest = (await server.get(`/events/${eventId}/guests/${created.body.id}`)).body;
    assert.equal(guest.first_name, 'Zo\u00EB');
    assert.equal(guest.last_name, 'Ngo');
    assert.equal(guest.barcode, 'CAF\u00C9-7');
    assert.equal(guest.nfc_tag, '04:A1:B2');

    const again = await server.post(`/events/${eventId}/guests`, { first_name: 'Copy', last_name: '', email: '', registration_type: typeId, barcode: '\u2060CAF\u00C9-7' });
    assert.equal(again.status, 400);
    assert.deepEqual(again.body.conflicted_guest_id, [String(created.body.id)]);
    assert.equal(again.body.barcode.length, 1);

    const scan = await server.post(`/events/${eventId}/checkins`, { barcode: 'CAF\u00C9-7' });
    assert.equal(scan.status, 201, JSON.stringify(scan.body));
    const byTag = await server.post(`/events/${eventId}/checkins`, { nfc_tag: '04:A1:B2\u200B', direction: 'out' });
    assert.equal(byTag.status, 201, JSON.stringify(byTag.body));
    const search = await server.get(`/events/${eventId}/guests?search=${encodeURIComponent('Zoe\u0308')}`);
    assert.equal(search.body.count, 1);
  });

  it('POST /events/:id/guests.csv takes a code that differs only by invisible characters as taken', async () => {
    const csv = 'first_name,last_name,email,barcode\nDup,Guest,,\u200BCAFE\u0301-7\n';
    const res = await server.request('POST', `/events/${eventId}/guests.csv`, { rawBody: csv, headers: { 'content-type': 'text/csv' } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { rows: [{ row: 2, errors: { barcode: [MSG.csvCodeTaken('CAF\u00c9-7')] } }], more_rows: 0 });
  });
});

describe('GET /events/:id/guests.csv formula cells', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  it('writes cells and question headers that start with = + - @ tab or CR behind a quote (a phone number aside)', async () => {
    const eventId = await createEvent(server, await createGroup(server));
    const typeId = (await server.post(`/events/${eventId}/registration_types`, { type: 'ticket', name: 'General', description: '' })).body.id;
    const question = await server.post(`/events/${eventId}/custom_questions`, { question: '=HYPERLINK("http://evil.test")', type: 'text' });
    assert.equal(question.status, 201, JSON.stringify(question.body));
    const guest = await server.post(`/events/${eventId}/guests`, {
      first_name: '=1+1', last_name: '+cmd|/C calc', email: '', company: '@SUM(A1)', job_title: '-2+3', registration_type: typeId,
      custom_questions: [{ question_id: question.body.id, answer: '=IMPORTXML("x")' }],
    });
    assert.equal(guest.status, 201, JSON.stringify(guest.body));
    const res = await fetch(`${server.baseUrl}/events/${eventId}/guests.csv`, { headers: { authorization: `Token ${server.adminToken}` } });
    const [header, row] = parse(await res.text(), { bom: true, relax_quotes: true }) as string[][];
    const cell = Object.fromEntries(header.map((h, i) => [h, row[i]]));
    assert.equal(header.at(-1), `'=HYPERLINK("http://evil.test")`);
    assert.equal(cell['First name'], "'=1+1");
    assert.equal(cell['Last name'], "'+cmd|/C calc");
    assert.equal(cell.Company, "'@SUM(A1)");
    assert.equal(cell['Job title'], "'-2+3");
    assert.equal(row.at(-1), `'=IMPORTXML("x")`);
  });
});

describe('data files and start-up checks', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-files-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('makes the database folder 0700 and the database with its WAL 0600', async () => {
    const db = path.join(dir, 'fresh', 'data', 'doorlist.sqlite');
    const server = await TestServer.start({ db });
    try {
      assert.equal((await server.get('/events')).status, 200);
      assert.equal(mode(path.dirname(db)), 0o700);
      assert.equal(mode(db), 0o600);
      assert.equal(mode(`${db}-wal`), 0o600);
    } finally {
      await server.running.close();
    }
  });

  it('removes temporary files of processes that are gone at start, and makes new ones 0600 in a 0700 folder', async () => {
    const stale = path.join(privateTempDir(), 'doorlist-999999999-deadbeef.doorlist');
    fs.writeFileSync(stale, 'guest data');
    const mine = createTempFile('.csv');
    const server = await TestServer.start({ db: path.join(dir, 'temp', 'doorlist.sqlite') });
    try {
      assert.equal(fs.existsSync(stale), false);
      assert.equal(fs.existsSync(mine), true, 'a running process keeps its files');
      assert.equal(mode(mine), 0o600);
      assert.equal(mode(privateTempDir()), 0o700);
    } finally {
      fs.rmSync(mine, { force: true });
      await server.running.close();
    }
  });

  it('npm run serve refuses a file that is not a database: one line, exit 1, file untouched', async () => {
    const file = path.join(dir, 'garbage.sqlite');
    fs.writeFileSync(file, Buffer.alloc(8192, 7));
    const result = await runServe({ DOORLIST_DB: file, DOORLIST_PORT: '0' });
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `Doorlist could not start: ${MSG.databaseDamaged(file, 'the file is not an SQLite database')}\n`);
    assert.deepEqual(fs.readFileSync(file), Buffer.alloc(8192, 7));
  });

  it('npm run serve refuses a database with damaged pages', async () => {
    const file = path.join(dir, 'damaged.sqlite');
    await writeDamagedDatabase(file);
    const result = await runServe({ DOORLIST_DB: file, DOORLIST_PORT: '0' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^Doorlist could not start: the database .* is damaged \(.+\); restore it from a backup, or move it aside to start with an empty one\.\n$/);
  });
});
