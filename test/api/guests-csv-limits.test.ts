import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { residentMb, signIn, startServeProcess, type ServerProcess } from '../helpers/server-process';
import { privateTempDir } from '../../server/temp-files';
import { MSG } from '../../core/messages';
import { CSV_LISTED_ROW_ERRORS, CSV_MAX_BAD_ROWS, CSV_MAX_ROWS } from '../../server/services/guest-csv-import';

/** The server's memory may grow by this much for any upload (it starts near 150 MB under tsx). */
const MEMORY_BUDGET_MB = 300;

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

  /** Uploads `csv` while sampling the server's resident memory and timing other requests. */
  async function upload(csv: Buffer) {
    const baseline = residentMb(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, residentMb(pid))), 25);
    let uploading = true;
    const others: number[] = [];
    const otherRequests = (async () => {
      while (uploading) {
        const started = Date.now();
        await api('GET', `/events/${eventId}`);
        others.push(Date.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const started = Date.now();
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${server.baseUrl}/events/${eventId}/guests.csv`, { method: 'POST', headers: { 'content-type': 'text/csv', authorization: `Token ${token}` }, body: new Uint8Array(csv) });
      text = await res.text();
    } finally {
      uploading = false;
      clearInterval(sampler);
      await otherRequests;
    }
    const ms = Date.now() - started;
    return { status: res.status, body: JSON.parse(text), bytes: text.length, ms, growthMb: peak - baseline, slowestOtherMs: Math.max(0, ...others) };
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

  it('answers a 25 MB flood of bad rows with 400, the first 100 rows and a count, in seconds and a bounded memory', async () => {
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
    assert.ok(res.ms < 15_000, `answered after ${res.ms} ms`);
    assert.ok(res.growthMb < MEMORY_BUDGET_MB, `server grew by ${res.growthMb.toFixed(0)} MB`);
    assert.ok(res.slowestOtherMs < 5_000, `another request waited ${res.slowestOtherMs} ms`);
    assert.equal(await guestCount(), 0);
    console.log(`# 25 MB bad-row flood: ${res.ms} ms, server grew ${res.growthMb.toFixed(0)} MB, slowest other request ${res.slowestOtherMs} ms`);
  });

  it('answers 400 for a file of empty rows once it passes the row limit, without reading the rest', async () => {
    const res = await upload(Buffer.from(`first_name,last_name,email\n${',,\n'.repeat(CSV_MAX_ROWS * 5)}`));
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { detail: MSG.csvTooManyRows(CSV_MAX_ROWS) });
    // Every row costs the CSV parser a few microseconds, more on a loaded machine.
    assert.ok(res.ms < 60_000, `answered after ${res.ms} ms`);
    assert.ok(res.growthMb < MEMORY_BUDGET_MB, `server grew by ${res.growthMb.toFixed(0)} MB`);
    console.log(`# ${CSV_MAX_ROWS * 5} empty rows: ${res.ms} ms, server grew ${res.growthMb.toFixed(0)} MB`);
  });

  it('answers 400 for a row longer than 64 KB, writing nothing', async () => {
    const res = await upload(Buffer.from(`first_name,last_name,email\nAda,"${'x'.repeat(100_000)}",ada@example.test\n`));
    assert.equal(res.status, 400);
    assert.match(res.body.detail, /^The CSV file cannot be read: .*maximum/);
    assert.equal(await guestCount(), 0);
  });

  it('writes nothing when the last of 20,000 rows is bad, and leaves no staging file behind', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `Guest,${i},g${i}@example.test,CODE-${i}`);
    rows[rows.length - 1] = ',last,last@example.test,CODE-LAST';
    const res = await upload(Buffer.from(`first_name,last_name,email,barcode\n${rows.join('\n')}\n`));
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { rows: [{ row: 20_001, errors: { first_name: [MSG.blank] } }], more_rows: 0 });
    assert.equal(await guestCount(), 0);
    assert.deepEqual(fs.readdirSync(privateTempDir()).filter((name) => name.startsWith(`doorlist-${pid}-`)), []);
  });

  it('answers 201 for 50,000 good rows, all of them written, memory bounded', async () => {
    const rows = Array.from({ length: 50_000 }, (_, i) => `Guest,${i},g${i}@example.test,BULK-${i}`);
    const res = await upload(Buffer.from(`first_name,last_name,email,barcode\n${rows.join('\n')}\n`));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.created, 50_000);
    assert.equal(await guestCount(), 50_000);
    assert.ok(res.growthMb < MEMORY_BUDGET_MB, `server grew by ${res.growthMb.toFixed(0)} MB`);
    console.log(`# 50,000-row import: ${res.ms} ms, server grew ${res.growthMb.toFixed(0)} MB, slowest other request ${res.slowestOtherMs} ms`);
  });
});
