import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { signIn, startServeProcess, type ServerProcess } from '../helpers/server-process';
import { privateTempDir } from '../../server/temp-files';
import { MSG } from '../../core/messages';
import { CSV_LISTED_ROW_ERRORS, CSV_MAX_BAD_ROWS, CSV_MAX_ROWS } from '../../server/services/guest-csv-import';

// How long an import takes and how far the server grows meanwhile are figures of `npm run bench`
// (section csv-import and its peak RSS); here, what each upload is answered and writes.

describe('POST /events/:event_id/guests.csv against a real server process', () => {
  let dir: string;
  let server: ServerProcess;
  let token: string;
  let eventId: number;
  let pid: number;

  const api = async (method: string, pathName: string, body?: unknown) => {
    const res = await fetch(`${server.baseUrl}${pathName}`, { method, headers: { 'content-type': 'application/json', authorization: `Token ${token}` }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const guestCount = async () => (await api('GET', `/events/${eventId}/guests?page_size=1`)).body.count as number;

  /** Uploads `csv` while another client keeps reading the event; answers how many of its reads were answered 200. */
  async function upload(csv: Buffer) {
    let uploading = true;
    const others: number[] = [];
    const otherRequests = (async () => {
      while (uploading) {
        others.push((await api('GET', `/events/${eventId}`)).status);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${server.baseUrl}/events/${eventId}/guests.csv`, { method: 'POST', headers: { 'content-type': 'text/csv', authorization: `Token ${token}` }, body: new Uint8Array(csv) });
      text = await res.text();
    } finally {
      uploading = false;
      await otherRequests;
    }
    return { status: res.status, body: JSON.parse(text), bytes: text.length, others };
  }

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-csv-limits-'));
    server = await startServeProcess({ DOORLIST_DB: path.join(dir, 'doorlist.sqlite') });
    pid = server.child.pid!;
    token = await signIn(server.baseUrl);
    const group = await api('POST', '/groups', { name: 'Flood Events' });
    eventId = (await api('POST', '/events', { group_id: group.body.id, name: 'Flood night', starts: '2026-12-01T18:00', ends: '2026-12-01T23:00', timezone: 'GMT' })).body.id;
    assert.equal((await api('POST', `/events/${eventId}/registration_types`, { type: 'ticket', name: 'General', description: '' })).status, 201);
  });
  after(async () => {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers a 25 MB flood of bad rows with 400, the first 100 rows and a count, answering other requests meanwhile', async () => {
    const line = ',Lovelace,ada@example.test\n';
    const csv = Buffer.from(`first_name,last_name,email\n${line.repeat(Math.floor((25 * 1024 * 1024) / line.length))}`);
    const res = await upload(csv);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.rows.length, CSV_LISTED_ROW_ERRORS);
    assert.deepEqual(res.body.rows[0], { row: 2, errors: { first_name: [MSG.blank] } });
    assert.deepEqual(res.body.rows[99], { row: 101, errors: { first_name: [MSG.blank] } });
    assert.equal(res.body.more_rows, CSV_MAX_BAD_ROWS - CSV_LISTED_ROW_ERRORS);
    assert.equal(res.body.detail, MSG.csvTooManyBadRows(CSV_MAX_BAD_ROWS, CSV_MAX_BAD_ROWS + 2));
    assert.ok(res.bytes < 20_000, `answer of ${res.bytes} bytes`);
    assert.ok(res.others.length > 0 && res.others.every((s) => s === 200), JSON.stringify(res.others));
    assert.equal(await guestCount(), 0);
  });

  it('answers 400 for a file of empty rows once it passes the row limit, without reading the rest', async () => {
    const res = await upload(Buffer.from(`first_name,last_name,email\n${',,\n'.repeat(CSV_MAX_ROWS * 5)}`));
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { detail: MSG.csvTooManyRows(CSV_MAX_ROWS) });
  });

  it('answers 400 for a row longer than 64 KB, writing nothing', async () => {
    const res = await upload(Buffer.from(`first_name,last_name,email\nAda,"${'x'.repeat(100_000)}",ada@example.test\n`));
    assert.equal(res.status, 400);
    assert.match(res.body.detail, /^The CSV file cannot be read: .*maximum/);
    assert.equal(await guestCount(), 0);
  });

  // More rows than two staged batches (2,000 each while no door is at work).
  it('writes nothing when the last of 5,000 rows is bad, and leaves no staging file behind', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `Guest,${i},g${i}@example.test,CODE-${i}`);
    rows[rows.length - 1] = ',last,last@example.test,CODE-LAST';
    const res = await upload(Buffer.from(`first_name,last_name,email,barcode\n${rows.join('\n')}\n`));
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { rows: [{ row: 5001, errors: { first_name: [MSG.blank] } }], more_rows: 0 });
    assert.equal(await guestCount(), 0);
    assert.deepEqual(fs.readdirSync(privateTempDir()).filter((name) => name.startsWith(`doorlist-${pid}-`)), []);
  });

  it('answers 201 for 10,000 good rows, all of them written', async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => `Guest,${i},g${i}@example.test,BULK-${i}`);
    const res = await upload(Buffer.from(`first_name,last_name,email,barcode\n${rows.join('\n')}\n`));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.created, 10_000);
    assert.equal(await guestCount(), 10_000);
  });
});
