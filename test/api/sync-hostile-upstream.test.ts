import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { FINDINGS_KEPT } from '../../core/sync-limits';
import { EVENT_FILE_MEDIA_TYPE } from '../../server/event-file';
import { QUICK_SYNC, TestServer } from '../helpers/server';
import { createApiKey, createEvent, createGroup, createRoleKey, createUser } from '../helpers/fixtures';
import { download, readFile, seedFullEvent, stamp, writeFile, type FileLine } from '../helpers/event-files';
import { UpstreamProxy } from '../helpers/upstream-proxy';
import { eventually } from '../helpers/eventually';

const SYNC_CHANGES = /^\/api\/v1\/events\/\d+\/sync\/changes/;

async function seedUpstream(central: TestServer, name: string) {
  const groupId = await createGroup(central, { name: `${name} box office` });
  const eventId = await createEvent(central, groupId, { name });
  const rt = await central.post(`/events/${eventId}/registration_types`, { type: 'ticket', name: 'Entry', description: 'Door' });
  assert.equal(rt.status, 201, JSON.stringify(rt.body));
  for (const first of ['Ada', 'Bob']) {
    const res = await central.post(`/events/${eventId}/guests`, { registration_type: rt.body.id, first_name: first, last_name: 'Guest', email: `${first}@guests.test`, barcode: `${name}-${first}` });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
  return { eventId, rt: rt.body.id as number, key: await createApiKey(central, groupId, 'follower') };
}

/** Answers the follower's pulls with `file` and `cursor`; everything else reaches the real upstream. */
function servePulls(file: Buffer, cursor = new Date().toISOString()) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.method !== 'GET' || !SYNC_CHANGES.test(req.url ?? '')) return false;
    res.writeHead(200, { 'content-type': EVENT_FILE_MEDIA_TYPE, 'content-length': String(file.length), 'x-doorlist-cursor': cursor });
    res.end(file);
    return true;
  };
}

/**
 * Answers with `body` a few bytes at a time (a trickle far under any minimum rate), never
 * ending on its own; `closed` resolves when the follower lets the connection go.
 */
function trickle(res: http.ServerResponse, body: Buffer, headers: http.OutgoingHttpHeaders) {
  res.writeHead(200, headers);
  let sent = 0;
  const timer = setInterval(() => {
    if (sent < body.length) res.write(body.subarray(sent, sent + 10));
    sent += 10;
  }, 200);
  const closed = new Promise<void>((resolve) => res.once('close', () => {
    clearInterval(timer);
    resolve();
  }));
  return { closed };
}

/** Everything of one event on the laptop, row by row, for "nothing changed" comparisons. */
async function eventRows(server: TestServer, eventId: number) {
  return {
    event: await server.db('events').where({ id: eventId }).first(),
    guests: await server.db('guests').where({ event_id: eventId }).orderBy('id'),
    codes: await server.db('promotion_codes').where({ event_id: eventId }).orderBy('id'),
    types: await server.db('registration_types').where({ event_id: eventId }).orderBy('id'),
  };
}

describe('A followed upstream that turns hostile', () => {
  let central: TestServer;
  let laptop: TestServer;
  let proxy: UpstreamProxy;
  let followed: number;
  let honest: { header: Record<string, any>; records: FileLine[] };
  let victim: { eventId: number; uid: string; records: FileLine[] };

  const status = async () => (await laptop.get(`/events/${followed}/sync`)).body;
  const waitFor = (what: string, pick: (s: any) => boolean, ms?: number) => eventually(what, async () => ((s) => (pick(s) ? s : undefined))(await status()), ms);
  /** The upstream is honest again: the follow recovers by itself. */
  async function recovers() {
    proxy.override = undefined;
    proxy.release();
    await waitFor('the sync to recover', (s) => s.state === 'ok');
  }

  before(async () => {
    [central, laptop] = await Promise.all([TestServer.start(), TestServer.start(QUICK_SYNC)]);
    const upstream = await seedUpstream(central, 'Followed gala');
    honest = readFile(await download(central, upstream.eventId));
    // Another group's event on the laptop: what a hostile upstream must never reach.
    const otherGroup = await createGroup(laptop, { name: 'Other organiser' });
    const victimId = await createEvent(laptop, otherGroup, { name: 'Other gala' });
    await seedFullEvent(laptop, victimId, 'VIC');
    const victimFile = readFile(await download(laptop, victimId));
    victim = { eventId: victimId, uid: victimFile.header.event.uid, records: victimFile.records };
    proxy = await UpstreamProxy.start(central.baseUrl);
    const res = await laptop.post('/sync', { url: proxy.baseUrl, key: upstream.key, event_id: upstream.eventId });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    followed = res.body.event_id;
    await waitFor('a first cycle', (s) => s.state === 'ok' && s.last_push_at !== null);
  });
  after(async () => {
    await proxy.close();
    await Promise.all([central.stop(), laptop.stop()]);
  });

  it('refuses a pull whose file is about another event here: state error, that event untouched', async () => {
    const before = await eventRows(laptop, victim.eventId);
    const event = victim.records.find((r) => r.table === 'events')!;
    const guest = victim.records.find((r) => r.table === 'guests')!;
    const file = writeFile({ ...honest.header, event: { uid: victim.uid, name: 'Pwned' } }, [
      { table: 'events', record: { ...event.record, name: 'Pwned', modified: stamp() } },
      { table: 'guests', record: { ...guest.record, first_name: 'Pwned', modified: stamp() } },
    ]);
    proxy.override = servePulls(file);
    const s = await waitFor('the refusal', (x) => x.state === 'error');
    assert.equal(s.error, MSG.syncOtherEvent);
    assert.deepEqual(await eventRows(laptop, victim.eventId), before);
    await recovers();
  });

  it("refuses a file that names the followed event in its header but carries another event's record", async () => {
    const before = await eventRows(laptop, victim.eventId);
    const event = victim.records.find((r) => r.table === 'events')!;
    const file = writeFile(honest.header, [
      { table: 'events', record: { ...event.record, name: 'Pwned', modified: stamp() } },
      { table: 'guests', record: { ...victim.records.find((r) => r.table === 'guests')!.record, first_name: 'Pwned', modified: stamp() } },
    ]);
    proxy.override = servePulls(file);
    const s = await waitFor('the refusal', (x) => x.state === 'error');
    assert.equal(s.error, MSG.eventFileInvalid('it holds another event'));
    assert.deepEqual(await eventRows(laptop, victim.eventId), before);
    await recovers();
  });

  it("lists, and never applies, records of the followed event's file that carry another event's uids", async () => {
    const before = await eventRows(laptop, victim.eventId);
    const pick = (table: string) => victim.records.find((r) => r.table === table)!.record;
    const code = pick('promotion_codes');
    const renamed = pick('guests');
    const file = writeFile(honest.header, [
      ...honest.records.filter((r) => r.table === 'events' || r.table === 'registration_types'),
      // Another group's guest renamed, its promotion code changed, a guest slipped into its registration type.
      { table: 'guests', record: { ...honest.records.find((r) => r.table === 'guests')!.record, uid: renamed.uid, first_name: 'Pwned', modified: stamp() } },
      { table: 'guests', record: { ...renamed, uid: randomUUID(), first_name: 'Injected', barcode: 'INJECTED-1', modified: stamp() } },
      { table: 'promotion_codes', record: { ...code, discount_amount: 99, modified: stamp() } },
    ]);
    proxy.override = servePulls(file);
    const s = await waitFor('the listed conflicts', (x) => x.conflicts.some((c: any) => c.uid === code.uid));
    assert.equal(s.state, 'ok');
    const kinds = new Set(s.conflicts.filter((c: any) => [code.uid, renamed.uid, renamed.registration_type_uid].includes(c.uid)).map((c: any) => `${c.table}:${c.kind}`));
    assert.deepEqual([...kinds].sort(), ['guests:other_event', 'promotion_codes:other_event', 'registration_types:other_event']);
    assert.deepEqual(await eventRows(laptop, victim.eventId), before);
    assert.equal(await laptop.db('guests').where({ first_name: 'Injected' }).first(), undefined);
    await recovers();
  });

  it('shows a bad X-Doorlist-Cursor as an error, applies nothing, and recovers at the next good answer', async () => {
    const file = writeFile(honest.header, [
      { table: 'events', record: { ...honest.records[0].record, name: 'Renamed by a bad answer', modified: stamp() } },
      ...honest.records.filter((r) => r.table === 'registration_types'),
    ]);
    proxy.override = servePulls(file, 'not a time');
    const s = await waitFor('the refusal', (x) => x.state === 'error');
    assert.equal(s.error, MSG.syncBadCursor);
    assert.notEqual((await laptop.db('events').where({ id: followed }).first()).name, 'Renamed by a bad answer');
    await recovers();
  });

  it('refuses an answer that says it is larger than a pull may be, before reading it', async () => {
    proxy.override = (req, res) => {
      if (req.method !== 'GET' || !SYNC_CHANGES.test(req.url ?? '')) return false;
      res.writeHead(200, { 'content-type': EVENT_FILE_MEDIA_TYPE, 'content-length': String(600 * 1024 * 1024), 'x-doorlist-cursor': new Date().toISOString() });
      res.write(Buffer.alloc(1024));
      return proxy.hold(res);
    };
    const s = await waitFor('the refusal', (x) => x.state === 'error');
    assert.equal(s.error, MSG.syncAnswerTooLarge(500));
    await recovers();
  });

  it("never repeats an upstream's body: a 500 shows offline in this laptop's words", async () => {
    proxy.override = (req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: `SQLITE_ERROR near "select": internal ${'x'.repeat(100_000)}` }));
      return true;
    };
    const s = await waitFor('offline', (x) => x.state === 'offline');
    assert.equal(s.error, MSG.syncUpstreamAnswered(500));
    await recovers();
  });

  it('does not follow a redirect to another origin', async () => {
    proxy.override = (req, res) => {
      res.writeHead(302, { location: `http://localhost:${new URL(central.baseUrl).port}${req.url}` });
      res.end();
      return true;
    };
    const s = await waitFor('the refusal', (x) => x.state === 'error');
    assert.equal(s.error, MSG.syncRedirected);
    await recovers();
  });

  it('shows a hung upstream as offline once it has been silent for UPSTREAM_LIMITS.silentMs', async () => {
    proxy.override = (_req, res) => proxy.hold(res);
    const s = await waitFor('offline', (x) => x.state === 'offline');
    assert.equal(s.error, MSG.syncSilent(5));
    await recovers();
  });

  it('shows an upstream that trickles its answer as offline (too slow), abandons that cycle and recovers', async () => {
    let letGo = 0;
    proxy.override = (req, res) => {
      if (req.method !== 'GET' || !SYNC_CHANGES.test(req.url ?? '')) return false;
      void trickle(res, writeFile(honest.header, honest.records), { 'content-type': EVENT_FILE_MEDIA_TYPE, 'x-doorlist-cursor': new Date().toISOString() }).closed.then(() => letGo++);
      return proxy.hold(res);
    };
    const s = await waitFor('offline', (x) => x.state === 'offline' && x.error === MSG.syncTooSlow(4096));
    assert.equal(s.error, MSG.syncTooSlow(4096));
    // The trickling answer was let go: the cycle was abandoned, not left waiting.
    await eventually('the trickle let go', async () => (letGo > 0 ? true : undefined));
    await recovers();
  });

  it('stops an endless pull at what its header declares, having taken a few MB at most', async () => {
    let sent = 0;
    proxy.override = (req, res) => {
      if (req.method !== 'GET' || !SYNC_CHANGES.test(req.url ?? '')) return false;
      res.writeHead(200, { 'content-type': EVENT_FILE_MEDIA_TYPE, 'x-doorlist-cursor': new Date().toISOString() });
      const gzip = zlib.createGzip({ level: 1 });
      gzip.on('data', (chunk: Buffer) => {
        sent += chunk.length;
        if (!res.write(chunk)) gzip.pause();
      });
      res.on('drain', () => gzip.resume());
      res.on('close', () => gzip.destroy());
      const line = (r: unknown) => JSON.stringify(r) + '\n';
      const guest = honest.records.find((r) => r.table === 'guests')!;
      const more = () => {
        if (gzip.destroyed) return;
        let chunk = '';
        for (let i = 0; i < 200; i++) chunk += line({ table: 'guests', record: { ...guest.record, uid: randomUUID(), notes: randomUUID().repeat(20) } });
        if (gzip.write(chunk)) setImmediate(more);
        else gzip.once('drain', more);
      };
      gzip.write(line(honest.header));
      more();
      return true;
    };
    const s = await waitFor('the refusal', (x) => x.state === 'error');
    assert.equal(s.error, MSG.syncNotDoorlist);
    proxy.override = undefined;
    assert.ok(sent < 16 * 1024 * 1024, `the pull stopped at its bound (${sent} bytes sent)`);
    await recovers();
  });

  it('keeps at most FINDINGS_KEPT conflicts however many a push answer claims, and keeps syncing', async () => {
    proxy.override = (req, res) => {
      // Only the large push (the import below): its answer may be as large as its records allow.
      if (req.method !== 'POST' || !SYNC_CHANGES.test(req.url ?? '') || Number(req.headers['content-length']) < 5000) return false;
      req.resume();
      const conflicts = Array.from({ length: 1500 }, () => ({ table: 'guests', uid: randomUUID(), kind: 'barcode', value: 'x'.repeat(100), resolution: 'r' }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ conflicts, double_admissions: [] }));
      return true;
    };
    const csv = ['First Name,Last Name,E-mail,Barcode,Registration Type', ...Array.from({ length: 300 }, (_, i) => `Pushed${i},Guest,p${i}@x.test,PUSHED-${i},Entry`), ''].join('\r\n');
    const imported = await laptop.request('POST', `/events/${followed}/guests.csv`, { rawBody: csv, headers: { 'content-type': 'text/csv' } });
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    const s = await waitFor('the push', (x) => x.pending === 0 && x.conflicts_count >= FINDINGS_KEPT);
    assert.equal(s.state, 'ok');
    assert.equal(s.conflicts_count, FINDINGS_KEPT);
    await recovers();
  });

  it('refuses a 40 MB answer to the push of one scan: an answer is bounded by what was pushed', async () => {
    proxy.override = (req, res) => {
      if (req.method !== 'POST' || !SYNC_CHANGES.test(req.url ?? '')) return false;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const more = () => {
        while (sent < 40 && res.write(chunk)) sent++;
        if (sent < 40) res.once('drain', more);
        else res.end();
      };
      res.on('error', () => undefined);
      more();
      return true;
    };
    const scan = await laptop.post(`/events/${followed}/checkins`, { barcode: 'Followed gala-Bob', station: 'side door' });
    assert.equal(scan.status, 201, JSON.stringify(scan.body));
    const s = await waitFor('the refusal', (x) => x.state === 'error');
    assert.equal(s.error, MSG.syncPushAnswerTooLarge);
    assert.equal(s.pending, 1);
    await recovers();
    await waitFor('the scan upstream', (x) => x.pending === 0);
  });
});

describe('Conflicts past SQLite\'s 500 terms: the same CSV imported on both sides during an outage', () => {
  it('keeps syncing, lists the conflicts, and shows no statement', async () => {
    const [central, laptop] = await Promise.all([TestServer.start(), TestServer.start(QUICK_SYNC)]);
    const proxy = await UpstreamProxy.start(central.baseUrl);
    try {
      const upstream = await seedUpstream(central, 'Outage gala');
      const res = await laptop.post('/sync', { url: proxy.baseUrl, key: upstream.key, event_id: upstream.eventId });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const eventId = res.body.event_id;
      const status = async () => (await laptop.get(`/events/${eventId}/sync`)).body;
      await eventually('a first cycle', async () => ((s) => (s.state === 'ok' && s.last_push_at ? s : undefined))(await status()));

      proxy.override = (_req, res) => {
        res.writeHead(503).end();
        return true;
      };
      await eventually('offline', async () => ((s) => (s.state === 'offline' ? s : undefined))(await status()));
      const csv = ['First Name,Last Name,E-mail,Barcode,Registration Type', ...Array.from({ length: 600 }, (_, i) => `Guest${i},Both,g${i}@x.test,BOTH-${i},Entry`), ''].join('\r\n');
      for (const [server, id] of [
        [central, upstream.eventId],
        [laptop, eventId],
      ] as const) {
        const imported = await server.request('POST', `/events/${id}/guests.csv`, { rawBody: csv, headers: { 'content-type': 'text/csv' } });
        assert.equal(imported.status, 201, JSON.stringify(imported.body));
      }
      proxy.override = undefined;

      const s = await eventually('the merge both ways', async () => ((x) => (x.state === 'ok' && x.pending === 0 && x.conflicts_count >= 600 ? x : undefined))(await status()), 30_000);
      assert.equal(s.error, null);
      const all = await laptop.get(`/events/${eventId}/sync/conflicts?page_size=1000`);
      assert.equal(all.body.count, s.conflicts_count);
      assert.ok(all.body.results.every((c: any) => c.kind === 'barcode'));
      // Still in step: a scan upstream arrives here.
      const scan = await central.post(`/events/${upstream.eventId}/checkins`, { barcode: 'Outage gala-Ada', station: 'central' });
      assert.equal(scan.status, 201, JSON.stringify(scan.body));
      await eventually('the scan here', async () => (await laptop.db('checkins').where({ uid: scan.body.uid }).first()) ?? undefined);
      const after = await status();
      assert.equal(after.state, 'ok');
      assert.doesNotMatch(JSON.stringify(after), /insert into|select |SQLITE/i);
    } finally {
      await proxy.close();
      await Promise.all([central.stop(), laptop.stop()]);
    }
  });
});

describe('Who may follow', () => {
  let central: TestServer;
  let laptop: TestServer;
  let upstream: { eventId: number; key: string };

  before(async () => {
    [central, laptop] = await Promise.all([TestServer.start(), TestServer.start(QUICK_SYNC)]);
    upstream = await seedUpstream(central, 'Access gala');
  });
  after(async () => {
    await Promise.all([central.stop(), laptop.stop()]);
  });

  it('answers 403 to an API key of any role, and to a signed-in manager, on POST /sync, its preview and DELETE', async () => {
    const group = await createGroup(laptop, { name: 'Local organiser' });
    const eventId = await createEvent(laptop, group, { name: 'Local gala' });
    const manager = await createUser(laptop, group, 'manager');
    const tokens = [await createRoleKey(laptop, group, 'manager'), await createRoleKey(laptop, group, 'door'), manager.token];
    for (const token of tokens) {
      const follow = await laptop.post('/sync', { url: central.baseUrl, key: upstream.key, event_id: upstream.eventId }, { token });
      assert.deepEqual([follow.status, follow.body], [403, { detail: MSG.roleNotAllowed }]);
      const preview = await laptop.post('/sync/preview', { url: central.baseUrl, key: upstream.key }, { token });
      assert.deepEqual([preview.status, preview.body], [403, { detail: MSG.roleNotAllowed }]);
      const unfollow = await laptop.delete(`/events/${eventId}/sync`, { token });
      assert.deepEqual([unfollow.status, unfollow.body], [403, { detail: MSG.roleNotAllowed }]);
    }
    assert.deepEqual((await laptop.get('/sync')).body.results, []);
  });

  it('POST /sync against an upstream that trickles its event answers 400 naming the cause, and stores nothing', async () => {
    const proxy = await UpstreamProxy.start(central.baseUrl);
    try {
      const file = await download(central, upstream.eventId);
      proxy.override = (req, res) => {
        if (req.method !== 'GET' || !SYNC_CHANGES.test(req.url ?? '')) return false;
        trickle(res, file, { 'content-type': EVENT_FILE_MEDIA_TYPE, 'x-doorlist-cursor': new Date().toISOString() });
        return proxy.hold(res);
      };
      const res = await laptop.post('/sync', { url: proxy.baseUrl, key: upstream.key, event_id: upstream.eventId });
      assert.deepEqual([res.status, res.body], [400, { url: [MSG.syncTooSlow(4096)] }]);
      assert.deepEqual((await laptop.get('/sync')).body.results, []);
    } finally {
      await proxy.close();
    }
  });

  it('POST /sync/preview past the deadline (DOORLIST_SYNC_DEADLINE_S) answers 400 naming it, and a cycle past it is abandoned as offline', async () => {
    const patient = await TestServer.start({ ...QUICK_SYNC, syncDeadlineSeconds: 2, syncMinRate: 1 });
    const proxy = await UpstreamProxy.start(central.baseUrl);
    try {
      proxy.override = (_req, res) => {
        trickle(res, Buffer.from(`{"results": [${' '.repeat(100_000)}`), { 'content-type': 'application/json' });
        return proxy.hold(res);
      };
      const res = await patient.post('/sync/preview', { url: proxy.baseUrl, key: upstream.key });
      assert.deepEqual([res.status, res.body], [400, { url: [MSG.syncTooLong(2)] }]);

      // A follow's cycle past the deadline is abandoned: offline, its answer let go, then back to ok.
      proxy.override = undefined;
      const followed = await patient.post('/sync', { url: proxy.baseUrl, key: upstream.key, event_id: upstream.eventId });
      assert.equal(followed.status, 201, JSON.stringify(followed.body));
      const status = async () => (await patient.get(`/events/${followed.body.event_id}/sync`)).body;
      await eventually('a first cycle', async () => ((x) => (x.state === 'ok' ? x : undefined))(await status()));
      const file = await download(central, upstream.eventId);
      let letGo = 0;
      proxy.override = (req, res) => {
        if (req.method !== 'GET' || !SYNC_CHANGES.test(req.url ?? '')) return false;
        void trickle(res, file, { 'content-type': EVENT_FILE_MEDIA_TYPE, 'x-doorlist-cursor': new Date().toISOString() }).closed.then(() => letGo++);
        return proxy.hold(res);
      };
      const s = await eventually('offline', async () => ((x) => (x.state === 'offline' ? x : undefined))(await status()));
      assert.equal(s.error, MSG.syncTooLong(2));
      await eventually('the answer let go', async () => (letGo > 0 ? true : undefined));
      proxy.override = undefined;
      await eventually('the recovery', async () => ((x) => (x.state === 'ok' ? x : undefined))(await status()));
    } finally {
      await proxy.close();
      await patient.stop();
    }
  });

  it("answers 400 in this laptop's words when the upstream answers an error page, garbage or an enormous body, and stores nothing", async () => {
    const proxy = await UpstreamProxy.start(central.baseUrl);
    try {
      proxy.override = (_req, res) => {
        res.writeHead(400, { 'content-type': 'text/html' });
        res.end('<h1>Internal service at 10.0.0.5: secret banner</h1>');
        return true;
      };
      const res = await laptop.post('/sync', { url: proxy.baseUrl, key: upstream.key, event_id: upstream.eventId });
      assert.deepEqual([res.status, res.body], [400, { url: [MSG.syncUpstreamAnswered(400)] }]);
      proxy.override = (_req, res) => {
        res.writeHead(200, { 'content-type': EVENT_FILE_MEDIA_TYPE, 'x-doorlist-cursor': new Date().toISOString() });
        res.end('garbage that is no event file');
        return true;
      };
      const garbage = await laptop.post('/sync', { url: proxy.baseUrl, key: upstream.key, event_id: upstream.eventId });
      assert.deepEqual([garbage.status, garbage.body], [400, { url: [MSG.syncNotDoorlist] }]);
      proxy.override = (_req, res) => {
        res.writeHead(200, { 'content-type': EVENT_FILE_MEDIA_TYPE, 'content-length': String(600 * 1024 * 1024), 'x-doorlist-cursor': new Date().toISOString() });
        res.write(Buffer.alloc(1024));
        return proxy.hold(res);
      };
      const enormous = await laptop.post('/sync', { url: proxy.baseUrl, key: upstream.key, event_id: upstream.eventId });
      assert.deepEqual([enormous.status, enormous.body], [400, { url: [MSG.syncAnswerTooLarge(500)] }]);
      assert.deepEqual((await laptop.get('/sync')).body.results, []);
    } finally {
      await proxy.close();
    }
  });
});
