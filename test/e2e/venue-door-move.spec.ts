import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, expect, test, type Browser } from '@playwright/test';
import config from './playwright.config';
import { DoorPage } from './pages/door-page';
import { checkinsOf, seedEvent, type Seed } from './seed';
import { lanImpossible } from '../helpers/netns';
import { LanLaptop, makeBridgeLan, removeBridgeLan, type LanMember } from '../helpers/lan-laptop';

// Issue 47 "Done when", in Chromium: a phone that trusted only the box office's authority (A)
// scans at A's door screen; A dies (SIGKILL); B takes over (its real POST .../sync/takeover);
// the screen moves to B by itself, hands over the scan it queued meanwhile, and its next scan
// lands on B, each once by uid. A and B are `npm run serve` as built, each in a network namespace
// on a bridge this namespace is on (the browser reaches them at their LAN addresses), as in
// test/api/venue-three-laptops.test.ts. The phone's trust is an NSS store of its own (certutil)
// holding A's authority alone: no certificate error is ignored.

const SUBNET = `10.215.${(process.pid % 200) + 20}`;
const TAG = process.pid % 10000;
const BRIDGE = `dpb${TAG}`;
const MEMBER: Record<'A' | 'B', LanMember> = {
  A: { namespace: `doorlist-door-move-${process.pid}-A`, veth: `dp${TAG}A`, address: `${SUBNET}.2` },
  B: { namespace: `doorlist-door-move-${process.pid}-B`, veth: `dp${TAG}B`, address: `${SUBNET}.3` },
};
const MEMBERS = [MEMBER.A, MEMBER.B];
// The renderer waits this long on a silent laptop before it looks for the venue's upstream (use-venue-move.ts).
const MOVE_AFTER_MS = 10_000;

function certutilMissing(): string | undefined {
  try {
    execFileSync('certutil', ['-H'], { stdio: 'ignore' });
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'certutil is missing (apt-get install -y libnss3-tools)' : undefined;
  }
}

const impossible = lanImpossible(`${MEMBER.A.namespace}-probe`) ?? certutilMissing();
test.skip(impossible !== undefined, impossible);

let dir: string;
const trusted: string[] = [];
let A: LanLaptop;
let B: LanLaptop;
let seed: Seed;
let eventOnB: number;

/** A Chromium whose only added trust is `ca`: its own home, with an NSS store holding that authority. */
async function phoneTrusting(ca: string): Promise<Browser> {
  const home = path.join(dir, 'phone-home');
  const store = path.join(home, '.pki', 'nssdb');
  fs.mkdirSync(store, { recursive: true });
  fs.writeFileSync(path.join(home, 'box-office.crt'), ca);
  execFileSync('certutil', ['-N', '-d', `sql:${store}`, '--empty-password']);
  execFileSync('certutil', ['-A', '-d', `sql:${store}`, '-n', 'Doorlist box office', '-t', 'C,,', '-i', path.join(home, 'box-office.crt')]);
  const base = config.use!.launchOptions!;
  return chromium.launch({ ...base, env: { ...process.env, HOME: home } });
}

test.beforeAll(async () => {
  test.setTimeout(90_000);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-door-move-'));
  removeBridgeLan(BRIDGE, MEMBERS);
  makeBridgeLan(BRIDGE, SUBNET, MEMBERS);
  const laptop = (name: 'A' | 'B') => {
    fs.mkdirSync(path.join(dir, name));
    return new LanLaptop(name, MEMBER[name], path.join(dir, name), path.join(dir, name, 'doorlist.sqlite'), { trusted });
  };
  [A, B] = [laptop('A'), laptop('B')];
  await Promise.all([A.start(), B.start()]);
  seed = await seedEvent(A, 'Harbour Lights');
  const key = (await A.must(201, 'POST', `/groups/${seed.groupId}/api_keys`, { name: 'Side door laptop', role: 'door' })).key;
  eventOnB = (await B.must(201, 'POST', '/sync', { url: A.apiBase, key, event_id: seed.eventId, fingerprint: A.fingerprint })).event_id;
  // One authority for the venue: B's LAN certificate is signed by A's, and A knows B by it.
  await expect.poll(() => B.servedFingerprint(), { timeout: 30_000 }).toBe(A.fingerprint);
  await expect
    .poll(async () => (await A.must(200, 'GET', `/events/${seed.eventId}/sync/venue`)).venue.map((m: { url: string; fingerprint: string }) => `${m.url} ${m.fingerprint}`), { timeout: 30_000 })
    .toEqual([`${B.apiBase} ${A.fingerprint}`]);
  await expect.poll(async () => (await B.must(200, 'GET', `/events/${eventOnB}/guests`)).count, { timeout: 30_000 }).toBe(Object.keys(seed.guests).length);
});

test.afterAll(async () => {
  await Promise.all([A?.stop(), B?.stop()]);
  removeBridgeLan(BRIDGE, MEMBERS);
  if (process.env.DOORLIST_KEEP_VENUE_LOGS) console.log(`door move logs kept in ${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
});

test("a phone that trusted only A's authority moves to B once B takes over from a dead A, hands over its queued scan, and scans on B, each once", async () => {
  test.setTimeout(90_000);
  const browser = await phoneTrusting(A.ca);
  try {
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true })).newPage();
    const door = new DoorPage(page);
    await door.open(A.origin, A.token, { id: seed.eventId, name: seed.eventName }, { station: 'Phone at the front' });
    await door.copyLoaded();
    // While A answers, the screen keeps a door pass and the venue's laptops (B among them).
    await page.waitForFunction(
      ([id, b]) => (JSON.parse(localStorage.getItem(`doorlist.venue.${id}`) ?? 'null')?.laptops ?? []).some((l: { url: string }) => l.url === b),
      [seed.eventId, B.apiBase] as const,
      { timeout: 15_000 },
    );
    // The phone's Chromium trusts B's certificate by A's authority alone (an untrusted one would fail the fetch).
    expect(await page.evaluate(async (url) => (await fetch(url, { mode: 'no-cors' })).type, `${B.origin}/ca.crt`)).toBe('opaque');

    await A.kill();
    await door.scan(seed.guests.grace.barcode);
    await door.expectResult('checked_in', 'Grace Hopper', 'Admitted offline');
    await expect(door.pending()).toHaveText('1 queued');

    expect(await B.must(200, 'POST', `/events/${eventOnB}/sync/takeover`)).toEqual({ epoch: 2 });
    // The screen's clock jumps past its wait on the silent laptop (Date only; its timers run as they do).
    const moved = page.getByTestId('venue-moved');
    await expect(async () => {
      const now = await page.evaluate(() => Date.now());
      await page.clock.setSystemTime(now + MOVE_AFTER_MS + 1000);
      await expect(moved).toBeVisible({ timeout: 4000 });
    }).toPass({ timeout: 30_000 });
    await expect(moved).toContainText(`Scanning on Laptop B (${B.origin})`);
    await expect(door.pending()).toBeHidden({ timeout: 15_000 });

    const onB = page.waitForResponse((r) => r.url() === `${B.apiBase}/events/${eventOnB}/checkins` && r.request().method() === 'POST');
    await door.scan(seed.guests.ada.barcode);
    expect((await onB).status()).toBe(201);
    await door.expectResult('checked_in', 'Ada Lovelace');
    await expect(door.result()).not.toHaveAttribute('data-offline', 'true');
    await door.screenshotForDocs('venue-moved-to-b');

    const grace = await B.guestId(eventOnB, seed.guests.grace.barcode);
    const ada = await B.guestId(eventOnB, seed.guests.ada.barcode);
    const checkins = await checkinsOf(B, eventOnB);
    const uids = checkins.map((c) => c.uid);
    expect(new Set(uids).size).toBe(uids.length);
    expect(checkins.map((c) => c.guest_id).sort()).toEqual([grace, ada].sort());
    expect((await B.must(200, 'GET', `/events/${eventOnB}/sync/venue`)).part).toBe('upstream');
  } finally {
    await browser.close();
  }
});
