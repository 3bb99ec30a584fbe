import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import { eventually } from '../helpers/eventually';
import { GZIP, readFile, stamp, writeFile, type FileLine } from '../helpers/event-files';
import { signIn, startServeProcess, type ServerProcess } from '../helpers/server-process';

// Enough that each download below runs past its last cut point (256 KB, gzip included).
const GUESTS = 10_000;
const CHECKINS = 1000;

/** Where a client hangs up: before any answer, at the headers, or after some of the body. */
const CUT_POINTS = [
  { name: 'before the answer', bytes: -1 },
  { name: 'at the headers', bytes: 0 },
  { name: 'after 16 KB', bytes: 16 * 1024 },
  { name: 'after 256 KB', bytes: 256 * 1024 },
] as const;

/** Every route that answers a body large enough to be cut, for a door key as for a manager. */
const downloads = (eventId: number) => [
  `/events/${eventId}/guests.csv`,
  `/events/${eventId}/export`,
  `/events/${eventId}/sync/changes`,
  `/events/${eventId}/guests?page_size=1000`,
  `/events/${eventId}/checkins?page_size=1000`,
];

describe('a client that hangs up mid-download, against a real server process', () => {
  let dir: string;
  let server: ServerProcess;
  let token: string;
  let eventId: number;

  const api = async (method: string, pathName: string, body?: unknown, contentType = 'application/json') => {
    const res = await fetch(`${server.baseUrl}${pathName}`, {
      method,
      headers: { 'content-type': contentType, authorization: `Token ${token}` },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  /** Request lines the server logged: each request gets one when its response closes, whole or cut. */
  const requestLines = () => server.output().stdout.match(/"request (aborted|completed)"/g)?.length ?? 0;

  /**
   * GETs `pathName` and destroys the connection at `bytes` of the body (-1: as soon as the
   * request is sent); resolves once the server has logged the request's end or has exited.
   */
  async function hangUp(pathName: string, bytes: number): Promise<number> {
    const seen = requestLines();
    const url = new URL(server.baseUrl + pathName);
    let received = 0;
    await new Promise<void>((resolve) => {
      const req = http.get(url, { headers: { authorization: `Token ${token}` }, agent: false }, (res) => {
        const cut = () => {
          req.destroy();
          resolve();
        };
        if (bytes <= 0) return cut();
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received >= bytes) cut();
        });
        res.on('end', cut);
      });
      req.on('error', () => resolve());
      if (bytes < 0) req.once('finish', () => setImmediate(() => (req.destroy(), resolve())));
    });
    await eventually(`the server's line for the hang-up of ${pathName}`, async () => (requestLines() !== seen || server.child.exitCode !== null || server.child.signalCode !== null ? true : undefined), 30_000, 20);
    return received;
  }

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-download-abort-'));
    server = await startServeProcess({ DOORLIST_DB: path.join(dir, 'doorlist.sqlite'), DOORLIST_LOG_LEVEL: 'info' });
    token = await signIn(server.baseUrl);
    const group = await api('POST', '/groups', { name: 'Hang-up Events' });
    eventId = (await api('POST', '/events', { group_id: group.body.id, name: 'Hang-up night', starts: '2026-12-01T18:00', ends: '2026-12-01T23:00', timezone: 'GMT' })).body.id;
    assert.equal((await api('POST', `/events/${eventId}/registration_types`, { type: 'ticket', name: 'General', description: '' })).status, 201);
    const rows = Array.from({ length: GUESTS }, (_, i) => `Guest,${i},g${i}@example.test,CUT-${i}`);
    const imported = await api('POST', `/events/${eventId}/guests.csv`, `first_name,last_name,email,barcode\n${rows.join('\n')}\n`, 'text/csv');
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    // The check-ins go in as a laptop hands its scans over: the event's own file with them added, imported.
    const exported = await fetch(`${server.baseUrl}/events/${eventId}/export`, { headers: { authorization: `Token ${token}` } });
    const { header, records } = readFile(Buffer.from(await exported.arrayBuffer()));
    const scanned = stamp(-60);
    const checkins: FileLine[] = records
      .filter((r) => r.table === 'guests')
      .slice(0, CHECKINS)
      .map((g) => ({ table: 'checkins', record: { uid: randomUUID(), created: scanned, modified: scanned, guest_uid: g.record.uid, session_uid: null, direction: 'in', scanned_at: scanned, station: 'Door laptop', undone_at: null } }));
    const merged = await fetch(`${server.baseUrl}/events/import`, { method: 'POST', headers: { ...GZIP, authorization: `Token ${token}` }, body: new Uint8Array(writeFile(header, [...records, ...checkins])) });
    const result = (await merged.json()) as { checkins_added?: number };
    assert.deepEqual([merged.status, result.checkins_added], [200, CHECKINS], JSON.stringify(result));
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const cut of CUT_POINTS) {
    it(`keeps serving when every download is cut ${cut.name}`, async () => {
      for (const pathName of downloads(eventId)) {
        await hangUp(pathName, cut.bytes);
        assert.equal(server.child.exitCode, null, `the server exited after ${pathName} was cut ${cut.name}: ${server.output().stderr}`);
        assert.equal(server.child.signalCode, null);
        const next = await api('GET', `/events/${eventId}`);
        assert.equal(next.status, 200, `${pathName}: ${JSON.stringify(next.body)}`);
      }
    });
  }

  it('logs no failure for a client that went away, and still answers every download whole', async () => {
    const failures = server.output().stdout.split('\n').filter((line) => /"level":(50|60)/.test(line));
    assert.deepEqual(failures, []);
    assert.equal(server.output().stderr, '');
    const csv = await fetch(`${server.baseUrl}/events/${eventId}/guests.csv`, { headers: { authorization: `Token ${token}` } });
    assert.equal(csv.status, 200);
    assert.equal((await csv.text()).trim().split('\n').length, GUESTS + 1);
    const file = await fetch(`${server.baseUrl}/events/${eventId}/export`, { headers: { authorization: `Token ${token}` } });
    assert.equal(file.status, 200);
    assert.equal((await file.arrayBuffer()).byteLength, Number(file.headers.get('content-length')));
  });
});
