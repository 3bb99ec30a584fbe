import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { parseFingerprint } from '../../core/fingerprint';
import { outranks } from '../../core/venue';
import pg from 'pg';
import { eventually } from '../helpers/eventually';
import { lanImpossible } from '../helpers/netns';
import { LanLaptop, makeBridgeLan, removeBridgeLan, type LanMember } from '../helpers/lan-laptop';
import { PG_BIN, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster';
import { TEST_PG } from '../helpers/database';

// Issue 47 "Done when": a LAN of the test's own (three network namespaces on a bridge, and this
// namespace on it too; tests never use the machine's other addresses) and three laptops, each
// `npm run serve` sharing the LAN. B and C follow A pinned; A dies with a scan only it holds;
// B and C scan through the outage (one guest at both doors); B takes over, C finds it on its
// own, A started again on its own file follows B; then the same with B and C taking over at
// once. On SQLite in the SQLite pass; in the PostgreSQL pass (test/api/postgres-files.txt) the
// same with laptop B's database on PostgreSQL (a cluster of the test's own, reached over its Unix
// socket: the pass's cluster listens on this namespace's loopback, which B's namespace cannot see).

const SUBNET = `10.214.${(process.pid % 200) + 20}`;
const TAG = process.pid % 10000;
const BRIDGE = `dvb${TAG}`;
const NAMES = ['A', 'B', 'C'] as const;
type Name = (typeof NAMES)[number];
const MEMBER: Record<Name, LanMember> = Object.fromEntries(
  NAMES.map((name, i) => [name, { namespace: `doorlist-venue-${process.pid}-${name}`, veth: `dv${TAG}${name}`, address: `${SUBNET}.${i + 2}` }]),
) as Record<Name, LanMember>;
const MEMBERS = NAMES.map((n) => MEMBER[n]);
// What the test trusts: the three laptops' own authorities (a follower's certificate is soon its upstream's authority's).
const trusted: string[] = [];
type Laptop = LanLaptop<Name>;

const within = <T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000) => eventually(what, probe, ms, 100);
const GUESTS = ['Ada', 'Bob', 'Cy', 'Dee'];

const impossible = lanImpossible(`${MEMBER.A.namespace}-probe`);

for (const onPostgres of [Boolean(TEST_PG)]) {
  describe(`A venue of three laptops outlives its upstream${onPostgres ? ', laptop B on PostgreSQL' : ''}`, { skip: impossible ?? (onPostgres && !PG_BIN ? 'no PostgreSQL under /usr/lib/postgresql' : undefined) }, () => {
    let dir: string;
    const laptops = {} as Record<Name, Laptop>;
    let cluster: PostgresCluster | undefined;
    let groupId: number;

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-venue-'));
      removeBridgeLan(BRIDGE, MEMBERS);
      makeBridgeLan(BRIDGE, SUBNET, MEMBERS);
      for (const name of NAMES) {
        // A folder each: a laptop's authority and certificate are kept beside its database.
        const own = path.join(dir, name);
        fs.mkdirSync(own);
        let db = path.join(own, 'doorlist.sqlite');
        if (name === 'B' && onPostgres) {
          cluster = await startPostgresCluster();
          const admin = new pg.Client({ connectionString: cluster.url });
          await admin.connect();
          await admin.query('create database venue_b');
          await admin.end();
          const port = new URL(cluster.url).port;
          db = `postgres://postgres@/venue_b?host=${encodeURIComponent(cluster.socketDir)}&port=${port}`;
        }
        laptops[name] = new LanLaptop(name, MEMBER[name], own, db, { trusted });
      }
      await Promise.all(NAMES.map((n) => laptops[n].start()));
      groupId = (await laptops.A.must(201, 'POST', '/groups', { name: 'Box office', email: 'box@venue.test' })).id;
    });

    after(async () => {
      try {
        await Promise.all(NAMES.map((n) => laptops[n]?.stop()));
        await cluster?.remove();
      } finally {
        removeBridgeLan(BRIDGE, MEMBERS);
        if (process.env.DOORLIST_KEEP_VENUE_LOGS) console.log(`venue test logs kept in ${dir}`);
        else fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    /** An event on A with four guests; B and C follow it pinned, and each knows the venue. Answers each laptop's id of it. */
    async function followedEvent(title: string): Promise<Record<Name, number>> {
      const { A, B, C } = laptops;
      const eventId = (await A.must(201, 'POST', '/events', { name: title, starts: '2026-12-02T18:00', ends: '2026-12-02T23:30', timezone: 'Europe/Amsterdam', group_id: groupId })).id;
      const type = await A.must(201, 'POST', `/events/${eventId}/registration_types`, { type: 'ticket', name: 'Entry', description: 'Door' });
      for (const first of GUESTS) {
        await A.must(201, 'POST', `/events/${eventId}/guests`, { registration_type: type.id, first_name: first, last_name: 'Guest', email: `${first}@venue.test`, barcode: `${title}-${first}` });
      }
      const key = (await A.must(201, 'POST', `/groups/${groupId}/api_keys`, { name: `Doors of ${title}`, role: 'door' })).key;
      const ids = { A: eventId } as Record<Name, number>;
      for (const follower of [B, C]) {
        ids[follower.name] = (await follower.must(201, 'POST', '/sync', { url: A.apiBase, key, event_id: eventId, fingerprint: A.fingerprint })).event_id;
      }
      // One authority for the venue: each follower's LAN certificate is soon signed by A's.
      for (const follower of [B, C]) {
        await within(`${follower.name} serving a certificate of A's authority`, async () => ((await follower.servedFingerprint()) === A.fingerprint ? true : undefined));
      }
      // Each follower knows the other two laptops (A as its upstream answered itself, the other as A heard it), by that authority.
      for (const [follower, other] of [[B, C], [C, B]] as const) {
        await within(`${follower.name} knowing the venue of ${title}`, async () => {
          const status = await follower.must(200, 'GET', `/events/${ids[follower.name]}/sync`);
          const venue = status.venue as { url: string; fingerprint: string }[];
          const urls = venue.map((m) => m.url).sort();
          const pinned = venue.every((m) => m.fingerprint === A.fingerprint);
          return status.epoch === 1 && pinned && urls.join(' ') === [A.apiBase, other.apiBase].sort().join(' ') ? true : undefined;
        });
      }
      const venue = await A.must(200, 'GET', `/events/${eventId}/sync/venue`);
      assert.deepEqual([venue.part, venue.epoch, venue.venue.map((m: { name: string }) => m.name).sort()], ['upstream', 1, ['Laptop B', 'Laptop C']]);
      return ids;
    }

    /** Every answered scan on each laptop, exactly once each, and nothing else. */
    async function everywhereOnce(ids: Record<Name, number>, answered: string[]): Promise<void> {
      const expected = [...answered].sort();
      await within(
        'every answered scan on all three laptops',
        async () => {
          const seen = await Promise.all(NAMES.map((n) => laptops[n].checkinUids(ids[n])));
          return seen.every((uids) => uids.join(' ') === expected.join(' ')) ? true : undefined;
        },
        30_000,
      );
    }

    /** The double admission of Bob at the B and C doors, named on `side`. */
    async function namedOn(side: Laptop, eventId: number, title: string): Promise<void> {
      await within(`the double admission named on ${side.name}`, async () => {
        const page = await side.must(200, 'GET', `/events/${eventId}/sync/double_admissions`);
        const bob = (page.results as { first_name: string; checkins: { station: string }[] }[]).find((d) => d.first_name === 'Bob');
        return bob && bob.checkins.map((c) => c.station).sort().join(' ') === 'B door C door' ? true : undefined;
      });
      const guest = await side.must(200, 'GET', `/events/${eventId}/guests?search=${title}-Bob`);
      assert.equal(guest.results[0].first_name, 'Bob');
    }

    it('B takes over from a dead A; C follows B on its own; A, started again on its own file, follows B and hands over its scan', async () => {
      const { A, B, C } = laptops;
      const ids = await followedEvent('Harbour');
      const answered: string[] = [];
      answered.push(await A.scan(ids.A, 'Harbour-Ada', 'harbour-a-ada'));
      await A.kill();
      answered.push(await B.scan(ids.B, 'Harbour-Bob', 'harbour-b-bob'));
      answered.push(await C.scan(ids.C, 'Harbour-Bob', 'harbour-c-bob'));
      answered.push(await C.scan(ids.C, 'Harbour-Cy', 'harbour-c-cy'));
      answered.push(await B.scan(ids.B, 'Harbour-Dee', 'harbour-b-dee'));

      assert.deepEqual(await B.must(200, 'POST', `/events/${ids.B}/sync/takeover`), { epoch: 2 });
      await within('C following B at epoch 2', async () => {
        const status = await C.must(200, 'GET', `/events/${ids.C}/sync`);
        return status.url === B.apiBase && status.epoch === 2 && status.state === 'ok' ? status : undefined;
      });
      const cStatus = await C.must(200, 'GET', `/events/${ids.C}/sync`);
      assert.equal(cStatus.fingerprint, await B.servedFingerprint(), 'pinned to the fingerprint it learned');
      assert.equal(cStatus.venue_note, MSG.venueMoved('Laptop B', 2));

      await A.start();
      await within('A following B', async () => {
        const status = await A.request('GET', `/events/${ids.A}/sync`);
        return status.status === 200 && status.body.url === B.apiBase && status.body.epoch === 2 ? true : undefined;
      });
      assert.equal((await A.must(200, 'GET', `/events/${ids.A}/sync`)).venue_note, MSG.venueOutranked('Laptop B', 2));
      await everywhereOnce(ids, answered);
      await namedOn(B, ids.B, 'Harbour');
      await namedOn(C, ids.C, 'Harbour');
      const venue = await B.must(200, 'GET', `/events/${ids.B}/sync/venue`);
      assert.deepEqual([venue.part, venue.epoch], ['upstream', 2]);
    });

    it('B and C both take over at once: they meet by epoch and fingerprint, the loser follows the winner and says so, A follows the winner', async () => {
      const { A, B, C } = laptops;
      const ids = await followedEvent('Lantern');
      const answered: string[] = [];
      answered.push(await A.scan(ids.A, 'Lantern-Ada', 'lantern-a-ada'));
      await A.kill();
      answered.push(await B.scan(ids.B, 'Lantern-Bob', 'lantern-b-bob'));
      answered.push(await C.scan(ids.C, 'Lantern-Bob', 'lantern-c-bob'));
      answered.push(await C.scan(ids.C, 'Lantern-Cy', 'lantern-c-cy'));

      const [takenB, takenC] = await Promise.all([B.must(200, 'POST', `/events/${ids.B}/sync/takeover`), C.must(200, 'POST', `/events/${ids.C}/sync/takeover`)]);
      assert.deepEqual([takenB, takenC], [{ epoch: 2 }, { epoch: 2 }]);
      // The same rule on every laptop: at the same epoch, the lower fingerprint, then (one authority, as here) the lower address stays the upstream.
      const claim = async (l: Laptop) => ({ epoch: 2, fingerprint: parseFingerprint(await l.servedFingerprint()) as string, url: l.apiBase });
      const [winner, loser] = outranks(await claim(B), await claim(C)) ? [B, C] : [C, B];
      await within(`${loser.name} following ${winner.name}`, async () => {
        const status = await loser.request('GET', `/events/${ids[loser.name]}/sync`);
        return status.status === 200 && status.body.url === winner.apiBase && status.body.epoch === 2 ? true : undefined;
      });
      assert.equal((await loser.must(200, 'GET', `/events/${ids[loser.name]}/sync`)).venue_note, MSG.venueLostTie(`Laptop ${winner.name}`));
      assert.deepEqual((await winner.must(200, 'GET', `/events/${ids[winner.name]}/sync/venue`)).part, 'upstream');
      answered.push(await loser.scan(ids[loser.name], 'Lantern-Dee', 'lantern-loser-dee'));

      await A.start();
      await within(`A following ${winner.name}`, async () => {
        const status = await A.request('GET', `/events/${ids.A}/sync`);
        return status.status === 200 && status.body.url === winner.apiBase ? true : undefined;
      });
      await everywhereOnce(ids, answered);
      await namedOn(B, ids.B, 'Lantern');
      await namedOn(C, ids.C, 'Lantern');
    });
  });
}
if (!TEST_PG) describe('A venue of three laptops outlives its upstream, laptop B on PostgreSQL', () => it.skip('runs in the PostgreSQL pass (npm run test:api:pg)'));
