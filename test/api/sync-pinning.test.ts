import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { QUICK_SYNC, TestServer } from '../helpers/server';
import { createApiKey, createEvent, createGroup } from '../helpers/fixtures';
import { HttpsFront, forgeCertificate, makeAuthority, makeCertificate, type TestCertificate } from '../helpers/https-front';
import { pemFingerprint } from '../../server/sync/pinned-connection';
import { UpstreamProxy } from '../helpers/upstream-proxy';
import { eventually } from '../helpers/eventually';

/** As a person would type it off a screen: lowercase, spaces for colons. */
const typed = (fingerprint: string) => fingerprint.toLowerCase().replace(/:/g, ' ');

describe('Following another laptop over HTTPS by its fingerprint', () => {
  let central: TestServer;
  let laptop: TestServer;
  let front: HttpsFront;
  let authority: { cert: string; key: string };
  let certificate: TestCertificate;
  let upstream: { eventId: number; key: string };

  before(async () => {
    [central, laptop] = await Promise.all([TestServer.start(), TestServer.start(QUICK_SYNC)]);
    authority = await makeAuthority('Doorlist box office authority');
    certificate = await makeCertificate(authority);
    // The box-office laptop as the LAN sees it: its API over HTTPS, with a certificate of its own authority.
    front = await HttpsFront.start(central.running.app, certificate);
    const groupId = await createGroup(central, { name: 'Box office' });
    const eventId = await createEvent(central, groupId, { name: 'Venue night' });
    const rt = await central.post(`/events/${eventId}/registration_types`, { type: 'ticket', name: 'Entry', description: 'Door' });
    for (const first of ['Ada', 'Bob']) {
      const res = await central.post(`/events/${eventId}/guests`, { registration_type: rt.body.id, first_name: first, last_name: 'Guest', email: `${first}@x.test`, barcode: `LAN-${first}` });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    upstream = { eventId, key: await createApiKey(central, groupId, 'side door laptop') };
  });
  after(async () => {
    await front.close();
    await Promise.all([central.stop(), laptop.stop()]);
  });

  describe('POST /sync/preview', () => {
    it("answers 400 on fingerprint with the authority's fingerprint when none is given, and sends nothing to the upstream", async () => {
      const requests = front.requests;
      const res = await laptop.post('/sync/preview', { url: front.baseUrl, key: upstream.key });
      assert.deepEqual([res.status, res.body], [400, { fingerprint: [MSG.syncCertificateUntrusted(certificate.authorityFingerprint)] }]);
      assert.equal(front.requests, requests, 'the key never went to a certificate not accepted');
    });

    it('answers 400 on fingerprint when it matches neither the certificate nor its authority', async () => {
      const res = await laptop.post('/sync/preview', { url: front.baseUrl, key: upstream.key, fingerprint: 'ab'.repeat(32) });
      assert.deepEqual([res.status, res.body], [400, { fingerprint: [MSG.syncCertificateMismatch(certificate.authorityFingerprint)] }]);
    });

    it("answers 200 {fingerprint, events} with the authority's fingerprint as typed, or the certificate's own", async () => {
      const event = (await central.get(`/events/${upstream.eventId}`)).body;
      const expected = { fingerprint: certificate.authorityFingerprint, events: [{ id: upstream.eventId, name: 'Venue night', starts: event.starts, ends: event.ends, timezone: event.timezone }] };
      for (const fingerprint of [typed(certificate.authorityFingerprint), certificate.fingerprint]) {
        const res = await laptop.post('/sync/preview', { url: front.baseUrl, key: upstream.key, fingerprint });
        assert.deepEqual([res.status, res.body], [200, expected]);
      }
      assert.deepEqual((await laptop.get('/sync')).body.results, []);
    });

    it('answers 400 in the spec shape on a fingerprint that is not 64 hex digits and an address that is not http(s)', async () => {
      const short = await laptop.post('/sync/preview', { url: front.baseUrl, key: upstream.key, fingerprint: 'AB:CD' });
      assert.deepEqual([short.status, short.body], [400, { fingerprint: [MSG.syncFingerprintFormat] }]);
      const notHex = await laptop.post('/sync/preview', { url: front.baseUrl, key: upstream.key, fingerprint: 'zz'.repeat(32) });
      assert.deepEqual([notHex.status, notHex.body], [400, { fingerprint: [MSG.syncFingerprintFormat] }]);
      const ftp = await laptop.post('/sync/preview', { url: 'ftp://127.0.0.1/api/v1', key: upstream.key });
      assert.deepEqual([ftp.status, ftp.body], [400, { url: [MSG.syncUrlScheme] }]);
    });

    it('names the real cause: key refused, not HTTPS, unreachable, plain HTTP refused, not a Doorlist', async () => {
      const pinned = { fingerprint: certificate.authorityFingerprint };
      const key = await laptop.post('/sync/preview', { url: front.baseUrl, key: 'dl_wrong', ...pinned });
      assert.deepEqual([key.status, key.body], [400, { key: [MSG.syncKeyRefused] }]);

      const httpsToHttp = await laptop.post('/sync/preview', { url: central.baseUrl.replace('http:', 'https:'), key: upstream.key });
      assert.deepEqual([httpsToHttp.status, httpsToHttp.body], [400, { url: [MSG.syncNotHttps] }]);

      const closed = net.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as net.AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const unreachable = await laptop.post('/sync/preview', { url: `https://127.0.0.1:${port}/api/v1`, key: upstream.key });
      assert.deepEqual([unreachable.status, unreachable.body], [400, { url: [MSG.syncUnreachable('ECONNREFUSED')] }]);

      const proxy = await UpstreamProxy.start(central.baseUrl);
      try {
        // What a laptop sharing the LAN answers an API call over plain HTTP from another device (server/lan.ts).
        proxy.override = (_req, res) => {
          res.writeHead(403, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ detail: MSG.plainHttpRefused(front.baseUrl) }));
          return true;
        };
        const plain = await laptop.post('/sync/preview', { url: proxy.baseUrl, key: upstream.key });
        assert.deepEqual([plain.status, plain.body], [400, { url: [MSG.syncPlainHttpRefused] }]);
        proxy.override = (_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"results": "garbage"}');
          return true;
        };
        const garbage = await laptop.post('/sync/preview', { url: proxy.baseUrl, key: upstream.key });
        assert.deepEqual([garbage.status, garbage.body], [400, { url: [MSG.syncNotDoorlist] }]);
      } finally {
        await proxy.close();
      }
    });
  });

  describe('POST /sync with a fingerprint, then GET /events/:event_id/sync', () => {
    let eventId: number;
    const status = async () => (await laptop.get(`/events/${eventId}/sync`)).body;

    it('answers 400 on fingerprint without one, and 201 with it; the pin is kept and shown', async () => {
      const refused = await laptop.post('/sync', { url: front.baseUrl, key: upstream.key, event_id: upstream.eventId });
      assert.deepEqual([refused.status, refused.body], [400, { fingerprint: [MSG.syncCertificateUntrusted(certificate.authorityFingerprint)] }]);
      const wrong = await laptop.post('/sync', { url: front.baseUrl, key: upstream.key, event_id: upstream.eventId, fingerprint: 'cd'.repeat(32) });
      assert.deepEqual([wrong.status, wrong.body], [400, { fingerprint: [MSG.syncCertificateMismatch(certificate.authorityFingerprint)] }]);
      assert.deepEqual((await laptop.get('/sync')).body.results, []);

      const res = await laptop.post('/sync', { url: front.baseUrl, key: upstream.key, event_id: upstream.eventId, fingerprint: typed(certificate.authorityFingerprint) });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      eventId = res.body.event_id;
      const s = await eventually('a first cycle', async () => ((x) => (x.state === 'ok' && x.last_push_at ? x : undefined))(await status()));
      assert.equal(s.fingerprint, certificate.authorityFingerprint);
    });

    it('carries scans both ways over the pinned HTTPS', async () => {
      const there = await central.post(`/events/${upstream.eventId}/checkins`, { barcode: 'LAN-Ada', station: 'box office' });
      assert.equal(there.status, 201, JSON.stringify(there.body));
      await eventually('the box-office scan here', async () => (await laptop.db('checkins').where({ uid: there.body.uid }).first()) ?? undefined);
      const here = await laptop.post(`/events/${eventId}/checkins`, { barcode: 'LAN-Bob', station: 'side door' });
      assert.equal(here.status, 201, JSON.stringify(here.body));
      await eventually('the side-door scan there', async () => (await central.db('checkins').where({ uid: here.body.uid }).first()) ?? undefined);
    });

    it('counts a scan waiting while the upstream cannot be reached, and sends it when it answers again', async () => {
      // Nothing waits before the link goes (the last scans' guests, stamped here, go up with the next push).
      await eventually('nothing waiting', async () => ((x) => (x.state === 'ok' && x.pending === 0 ? x : undefined))(await status()));
      const port = front.port;
      await front.close();
      // A cycle under way as the link went may have merged a last pull whose guests wait to go up too.
      const waiting = (await eventually('offline', async () => ((x) => (x.state === 'offline' ? x : undefined))(await status()))).pending;
      const scan = await laptop.post(`/events/${eventId}/checkins`, { barcode: 'LAN-Ada', direction: 'out', station: 'side door' });
      assert.equal(scan.status, 201, JSON.stringify(scan.body));
      assert.equal((await status()).pending, waiting + 1);
      front = await HttpsFront.start(central.running.app, certificate, port);
      await eventually('the scan upstream', async () => ((x) => (x.state === 'ok' && x.pending === 0 ? x : undefined))(await status()));
      assert.ok(await central.db('checkins').where({ uid: scan.body.uid }).first());
    });

    it('puts the sync in state error when the upstream shows a certificate of another authority, and trusts nothing of it', async () => {
      const stranger = await makeCertificate(await makeAuthority('Another authority'));
      front.use(stranger);
      const s = await eventually('the error', async () => ((x) => (x.state === 'error' ? x : undefined))(await status()));
      assert.equal(s.error, MSG.syncCertificateChanged(stranger.authorityFingerprint));
      const requests = front.requests;
      const scan = await central.post(`/events/${upstream.eventId}/checkins`, { barcode: 'LAN-Bob', direction: 'out', station: 'box office' });
      assert.equal(scan.status, 201, JSON.stringify(scan.body));
      // Two more cycles (its retries after an error).
      const cycles = laptop.running.follower.cyclesEnded;
      await eventually('two more cycles', () => (laptop.running.follower.cyclesEnded >= cycles + 2 ? true : undefined));
      assert.equal((await status()).state, 'error');
      assert.equal(await laptop.db('checkins').where({ uid: scan.body.uid }).first(), undefined);
      assert.equal(front.requests, requests, 'nothing was sent to the other certificate');

      // The same authority's new certificate (an address changed) is trusted again by the same pin.
      front.use(await makeCertificate(authority));
      await eventually('the recovery', async () => ((x) => (x.state === 'ok' ? x : undefined))(await status()));
    });
  });
  describe('A forged certificate that names the pinned authority (its name and key id, the real authority appended)', () => {
    let forger: HttpsFront;
    let forged: TestCertificate;
    let second: { eventId: number };
    const pin = () => typed(certificate.authorityFingerprint);

    before(async () => {
      forged = await forgeCertificate(authority);
      forger = await HttpsFront.start(central.running.app, forged);
      const groupId = (await central.get(`/events/${upstream.eventId}`)).body.group_id;
      second = { eventId: await createEvent(central, groupId, { name: 'Second night' }) };
    });
    after(async () => {
      await forger.close();
    });

    it('shows the real authority in its chain, so only a signature check can tell it', () => {
      assert.ok(forged.chain.includes(authority.cert.trim()));
      assert.notEqual(forged.fingerprint, certificate.fingerprint);
    });

    it('POST /sync/preview answers 400 on fingerprint, and no request (no key) reaches the forger', async () => {
      const res = await laptop.post('/sync/preview', { url: forger.baseUrl, key: upstream.key, fingerprint: pin() });
      assert.deepEqual([res.status, res.body], [400, { fingerprint: [MSG.syncCertificateForged] }]);
      assert.ok(forger.connections > 0, 'the forger was reached');
      assert.equal(forger.requests, 0);
      assert.deepEqual(forger.authorizations, []);
    });

    it('POST /sync answers 400 on fingerprint, stores nothing, and sends the forger nothing', async () => {
      const res = await laptop.post('/sync', { url: forger.baseUrl, key: upstream.key, event_id: second.eventId, fingerprint: pin() });
      assert.deepEqual([res.status, res.body], [400, { fingerprint: [MSG.syncCertificateForged] }]);
      assert.equal(forger.requests, 0);
      assert.equal((await laptop.db('syncs').count({ n: '*' }).first())?.n, 1, 'only the earlier follow is kept');
    });

    it('a pin on a certificate passes that exact certificate only: another of the same authority is refused', async () => {
      const sibling = await makeCertificate(authority);
      const front = await HttpsFront.start(central.running.app, sibling);
      try {
        const res = await laptop.post('/sync/preview', { url: front.baseUrl, key: upstream.key, fingerprint: certificate.fingerprint });
        assert.deepEqual([res.status, res.body], [400, { fingerprint: [MSG.syncCertificateMismatch(certificate.authorityFingerprint)] }]);
        assert.equal(front.requests, 0);
        const exact = await laptop.post('/sync/preview', { url: front.baseUrl, key: upstream.key, fingerprint: sibling.fingerprint });
        assert.equal(exact.status, 200, JSON.stringify(exact.body));
      } finally {
        await front.close();
      }
    });

    describe('an existing follow whose upstream turns into the forger', () => {
      let front: HttpsFront;
      let eventId: number;
      const status = async () => (await laptop.get(`/events/${eventId}/sync`)).body;

      before(async () => {
        front = await HttpsFront.start(central.running.app, certificate);
        const res = await laptop.post('/sync', { url: front.baseUrl, key: upstream.key, event_id: second.eventId, fingerprint: pin() });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        eventId = res.body.event_id;
        await eventually('a first cycle', async () => ((x) => (x.state === 'ok' && x.last_push_at ? x : undefined))(await status()));
      });
      after(async () => {
        await front.close();
      });

      /** Follows the sync through `cycles` more connections of the follower, and answers every state it showed meanwhile. */
      async function statesOver(cycles: number): Promise<Set<string>> {
        const seen = new Set<string>();
        const until = front.connections + cycles;
        await eventually(`${cycles} more attempts`, async () => {
          seen.add((await status()).state);
          return front.connections >= until ? true : undefined;
        });
        seen.add((await status()).state);
        return seen;
      }

      it('keeps the authority the pin named (checked by signature) with the sync', async () => {
        const row = await laptop.db('syncs').where({ event_id: eventId }).first();
        assert.equal(pemFingerprint(row.authority_pem), certificate.authorityFingerprint.replace(/:/g, '').toLowerCase());
      });

      it('goes to state error and stays there, sending no request and no key', async () => {
        const requests = front.requests;
        front.use(forged);
        const s = await eventually('the error', async () => ((x) => (x.state === 'error' ? x : undefined))(await status()));
        assert.equal(s.error, MSG.syncCertificateForged);
        assert.deepEqual([...(await statesOver(3))], ['error']);
        assert.equal(front.requests, requests, 'nothing was sent to the forged certificate');
      });

      it('refuses it as well for a sync followed before the authority was kept, and learns it back once the real one answers', async () => {
        await laptop.db('syncs').where({ event_id: eventId }).update({ authority_pem: null });
        const requests = front.requests;
        assert.deepEqual([...(await statesOver(2))], ['error']);
        assert.equal((await status()).error, MSG.syncCertificateForged);
        assert.equal(front.requests, requests);

        front.use(certificate);
        await eventually('the recovery', async () => ((x) => (x.state === 'ok' ? x : undefined))(await status()));
        const row = await eventually('the authority kept again', async () => (await laptop.db('syncs').where({ event_id: eventId }).first())?.authority_pem ?? undefined);
        assert.equal(pemFingerprint(row), certificate.authorityFingerprint.replace(/:/g, '').toLowerCase());
      });
    });
  });
});
