import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { QUICK_SYNC, TestServer } from '../helpers/server';
import { createApiKey, createEvent, createGroup } from '../helpers/fixtures';
import { eventually } from '../helpers/eventually';
import { UpstreamProxy } from '../helpers/upstream-proxy';

/** What one push carried: the records of each table its event file holds (the event record aside). */
type Pushed = Record<string, number>;

/** The real upstream behind a proxy that reads each push's event file header (its counts) and passes the push on unchanged. */
async function pushTap(targetBaseUrl: string): Promise<{ proxy: UpstreamProxy; pushes: Pushed[] }> {
  const proxy = await UpstreamProxy.start(targetBaseUrl);
  const pushes: Pushed[] = [];
  proxy.override = (req, res) => {
    if (req.method !== 'POST' || !/\/sync\/changes$/.test(req.url ?? '')) return false;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const header = JSON.parse(zlib.gunzipSync(body).toString('utf8').split('\n')[0]) as { counts: Pushed };
      const { events: _event, ...records } = header.counts;
      pushes.push(Object.fromEntries(Object.entries(records).filter(([, n]) => n > 0)));
      proxy.passOn(req, res, body);
    });
    return true;
  };
  return { proxy, pushes };
}

describe('POST /events/:id/sync/changes from a real follower', () => {
  let central: TestServer;
  let laptop: TestServer;
  let tap: { proxy: UpstreamProxy; pushes: Pushed[] };
  let centralEvent: number;
  let eventId: number;

  before(async () => {
    [central, laptop] = await Promise.all([TestServer.start(), TestServer.start(QUICK_SYNC)]);
    const groupId = await createGroup(central, { name: 'Central box office' });
    centralEvent = await createEvent(central, groupId, { name: 'Echo gala' });
    const rt = await central.post(`/events/${centralEvent}/registration_types`, { type: 'ticket', name: 'Entry', description: 'Door' });
    for (const name of ['Ada', 'Bob', 'Cy']) {
      const res = await central.post(`/events/${centralEvent}/guests`, { registration_type: rt.body.id, first_name: name, last_name: 'Guest', email: `${name.toLowerCase()}@guests.test`, barcode: `CODE-${name.toUpperCase()}` });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    tap = await pushTap(central.baseUrl);
    const key = await createApiKey(central, groupId, 'laptop sync');
    const follow = await laptop.post('/sync', { url: tap.proxy.baseUrl, key, event_id: centralEvent, group_id: await createGroup(laptop, { name: 'Side door' }) });
    assert.equal(follow.status, 201, JSON.stringify(follow.body));
    eventId = follow.body.event_id;
  });
  after(async () => {
    await Promise.all([central.stop(), laptop.stop()]);
    await tap.proxy.close();
  });

  /** The pushes the laptop makes over `n` more of its cycles. */
  async function pushesOver(n: number): Promise<Pushed[]> {
    const from = tap.pushes.length;
    const cycles = laptop.running.follower.cyclesEnded;
    await eventually(`${n} more cycles`, () => (laptop.running.follower.cyclesEnded >= cycles + n ? true : undefined));
    return tap.pushes.slice(from);
  }

  it('sends nothing back of what it pulled: a scan made upstream is not pushed up again', async () => {
    const scan = await central.post(`/events/${centralEvent}/checkins`, { barcode: 'CODE-ADA', station: 'central door' });
    assert.equal(scan.status, 201, JSON.stringify(scan.body));
    await eventually('the central scan on the laptop', async () => ((await laptop.db('checkins').where({ uid: scan.body.uid }).first()) ? true : undefined));
    const ada = await laptop.db('guests').where({ event_id: eventId, barcode: 'CODE-ADA' }).first();
    assert.ok(ada.checked_in_at, 'the laptop shows the guest in');
    assert.deepEqual(await pushesOver(4), []);
  });

  it('sends its own scan once, the check-in and its guest, and then nothing more of it', async () => {
    const mine = await laptop.post(`/events/${eventId}/checkins`, { barcode: 'CODE-BOB', station: 'side door' });
    assert.equal(mine.status, 201, JSON.stringify(mine.body));
    await eventually('the laptop scan upstream', async () => ((await central.db('checkins').where({ uid: mine.body.uid }).first()) ? true : undefined));
    const carried = tap.pushes.filter((p) => (p.checkins ?? 0) > 0);
    assert.deepEqual(carried, [{ guests: 1, checkins: 1 }]);
    assert.deepEqual(await pushesOver(4), []);
  });

  it('sends an undo made here of a scan made upstream', async () => {
    const scan = await central.post(`/events/${centralEvent}/checkins`, { barcode: 'CODE-CY', station: 'central door' });
    await eventually('the central scan on the laptop', async () => ((await laptop.db('checkins').where({ uid: scan.body.uid }).first()) ? true : undefined));
    const local = await laptop.db('checkins').where({ uid: scan.body.uid }).first();
    const from = tap.pushes.length;
    assert.equal((await laptop.delete(`/events/${eventId}/checkins/${local.id}`)).status, 204);
    await eventually('the undo upstream', async () => ((await central.db('checkins').where({ uid: scan.body.uid }).first())?.undone_at ? true : undefined));
    assert.equal((await central.db('guests').where({ event_id: centralEvent, barcode: 'CODE-CY' }).first()).checked_in_at, null);
    assert.ok(tap.pushes.slice(from).some((p) => p.checkins === 1));
  });
});
