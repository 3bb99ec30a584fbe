import net from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { CONSOLE_PICTURES, PHONE, wideAndPhone } from './screenshots';
import { checkinsOf, seedEvent, type Seed } from './seed';

/**
 * The laptop reaches the central server through this: `cut` refuses and drops every
 * connection, so the central can take a scan the laptop cannot see yet.
 */
class Link {
  cut = false;
  private readonly sockets = new Set<net.Socket>();
  private readonly server: net.Server;

  constructor(private readonly target: () => number) {
    this.server = net.createServer((client) => {
      if (this.cut) return void client.destroy();
      const upstream = net.connect(this.target(), '127.0.0.1');
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ]) {
        this.sockets.add(a);
        a.on('error', () => b.destroy());
        a.on('close', () => {
          this.sockets.delete(a);
          b.destroy();
        });
        a.pipe(b);
      }
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}/api/v1`;
  }

  drop(): void {
    this.cut = true;
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.drop();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** What door staff see, wide and on a phone, kept for docs/sync.md. */
const screenshot = (page: Page, name: string) => wideAndPhone(page, CONSOLE_PICTURES, name);

let central: DoorServer;
let laptop: DoorServer;
let link: Link;
let seed: Seed;
let eventId: number;
let doorKey: string;
let centralKeyId: number;

test.beforeAll(async () => {
  central = await DoorServer.start();
  laptop = await DoorServer.start();
  seed = await seedEvent(central);
  const centralKey = await central.must<{ id: number; key: string }>(201, 'POST', `/groups/${seed.groupId}/api_keys`, { name: 'Side door laptop', role: 'door' });
  centralKeyId = centralKey.id;
  const port = Number(new URL(central.url).port);
  link = new Link(() => port);
  const group = await laptop.must<{ id: number }>(201, 'POST', '/groups', { name: 'Side door', email: 'side@door.test' });
  const followed = await laptop.must<{ event_id: number }>(201, 'POST', '/sync', { url: await link.listen(), key: centralKey.key, event_id: seed.eventId, group_id: group.id });
  eventId = followed.event_id;
  doorKey = (await laptop.must<{ key: string }>(201, 'POST', `/groups/${group.id}/api_keys`, { name: 'Side door', role: 'door' })).key;
});

test.afterAll(async () => {
  await link?.close();
  await laptop?.dispose();
  await central?.dispose();
});

test('a door key sees the link to the central: synced, offline with what waits, and the guest let in at two doors', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(laptop.url, doorKey, { id: eventId, name: seed.eventName });
  await door.copyHolds(12);
  await expect(door.syncState()).toContainText(/^Synced \d+ s ago/);
  await expect(door.syncState()).toHaveAttribute('data-state', 'ok');
  await expect(door.syncDoubles()).toHaveCount(0);
  await door.scan(seed.guests.grace.barcode);
  await door.expectResult('checked_in', 'Grace Hopper');
  await expect.poll(async () => (await checkinsOf(central, seed.eventId, seed.guests.grace.id)).length, { timeout: 15_000 }).toBe(1);
  await screenshot(page, 'door-sync-synced');
  // A push prepared around the scan sends it yet counts it as waiting until the next push has
  // gone (docs/sync.md, "What staff see"): the central stops only once nothing waits.
  await expect.poll(async () => (await laptop.must<{ pending: number }>(200, 'GET', `/events/${eventId}/sync`)).pending, { timeout: 15_000 }).toBe(0);

  // The central server stops: the door keeps answering from this laptop and says what waits.
  await central.stop();
  await expect(door.syncState()).toContainText('Sync offline — 0 waiting', { timeout: 10_000 });
  await door.scan(seed.guests.ada.barcode);
  await door.expectResult('checked_in', 'Ada Lovelace');
  await expect(door.connection()).toHaveText('Online');
  await expect(door.syncState()).toContainText('Sync offline — 1 waiting', { timeout: 10_000 });
  await expect(door.syncState()).toHaveAttribute('title', /Keep scanning/);
  await screenshot(page, 'door-sync-offline');
  // A phone's top bar keeps the count in view, where the sentence would be cut.
  await page.setViewportSize(PHONE);
  await expect(door.syncState().getByText('Sync: 1 waiting')).toBeVisible();
  await page.setViewportSize({ width: 1280, height: 800 });

  // The central is back but this laptop still cannot reach it: its main entrance lets Ada in too.
  link.drop();
  await central.restart();
  await central.must(201, 'POST', `/events/${seed.eventId}/checkins`, { barcode: seed.guests.ada.barcode, station: 'Main entrance' });

  // The link returns: both scans are kept, once each, and the door names the double admission.
  link.cut = false;
  await expect(door.syncState()).toContainText(/^Synced \d+ s ago/, { timeout: 10_000 });
  await expect(door.syncDoubles()).toContainText('1 let in twice', { timeout: 10_000 });
  await expect.poll(async () => (await checkinsOf(central, seed.eventId, seed.guests.ada.id)).length, { timeout: 15_000 }).toBe(2);
  expect(await checkinsOf(laptop, eventId)).toHaveLength(3);
  await door.syncDoubles().click();
  const list = page.getByRole('dialog', { name: 'Let in at two doors' });
  await expect(list.getByTestId('sync-doubles-list').locator(':scope > li')).toHaveCount(1);
  await expect(list).toContainText('Ada Lovelace');
  await expect(list).toContainText(/Front door at \d/);
  await expect(list).toContainText(/Main entrance at \d/);
  await screenshot(page, 'door-sync-double');
  await page.keyboard.press('Escape');
  await expect(door.scanField()).toBeFocused();

  // Ada at the side door again: this laptop knows she is in.
  await door.scan(seed.guests.ada.barcode);
  await door.expectResult('already_checked_in', 'Ada Lovelace');

  // The organiser revokes the laptop's key on the central: the door says sync stopped, and scans go on.
  await central.must(204, 'DELETE', `/groups/${seed.groupId}/api_keys/${centralKeyId}`);
  await expect(door.syncState()).toContainText('Sync stopped', { timeout: 10_000 });
  await expect(door.syncState()).toHaveAttribute('title', /refuses this laptop .*tell the organiser/);
  await door.scan(seed.guests.edsger.barcode);
  await door.expectResult('checked_in', 'Edsger Dijkstra');
  await screenshot(page, 'door-sync-stopped');
});

test('an event this laptop does not follow shows no sync chip', async ({ page }) => {
  const own = await seedEvent(laptop, 'Own party');
  const asked: string[] = [];
  // Answers, not requests: an ask the station gave up on (its 2.5 s timeout on a loaded machine) is asked again.
  page.on('response', (r) => r.url().endsWith(`/events/${own.eventId}/sync`) && asked.push(r.url()));
  const door = new DoorPage(page);
  await door.open(laptop.url, laptop.adminToken, { id: own.eventId, name: own.eventName });
  await door.copyHolds(12);
  // Asked on opening (how often the opening asks is not the point: a re-render may ask again).
  expect(asked.length).toBeGreaterThan(0);
  const onOpening = asked.length;
  // Three polls of the counters: a sync chip asked for every few seconds (every 3 s when
  // followed) would have asked again by then.
  await door.afterPolls(3);
  await expect(door.syncState()).toHaveCount(0);
  // Then left alone: no 404 every few seconds.
  expect(asked.slice(onOpening)).toEqual([]);
  await expect(door.syncDoubles()).toHaveCount(0);
});
