import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import QRCode from 'qrcode';
import config from './playwright.config';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { checkinsOf, seedEvent, type Seed } from './seed';

const TICKET = 'GRACE-0002';

/**
 * A Y4M video of a ticket's QR code, for Chromium's fake camera: 640x480 grey frames (the U
 * and V planes neutral), black modules on white with a quiet zone.
 */
function qrVideo(text: string): string {
  const width = 640;
  const height = 480;
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const size = qr.modules.size;
  const scale = Math.floor(360 / (size + 8));
  const left = Math.floor((width - size * scale) / 2);
  const top = Math.floor((height - size * scale) / 2);
  const luma = Buffer.alloc(width * height, 235);
  for (let y = 0; y < size * scale; y += 1) {
    for (let x = 0; x < size * scale; x += 1) {
      if (qr.modules.get(Math.floor(y / scale), Math.floor(x / scale))) luma[(top + y) * width + left + x] = 16;
    }
  }
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma]);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-camera-')), 'ticket.y4m');
  fs.writeFileSync(file, Buffer.concat([Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`), frame, frame, frame]));
  return file;
}

const video = qrVideo(TICKET);
const base = config.use!.launchOptions!;
test.use({
  permissions: ['camera'],
  launchOptions: {
    ...base,
    args: [...(base.args ?? []), '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-video-capture=${video}`],
  },
});

let server: DoorServer;
let seed: Seed;

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server);
});

test.afterAll(async () => {
  await server?.dispose();
  fs.rmSync(path.dirname(video), { recursive: true, force: true });
});

test('the camera reads a ticket QR code and checks the guest in once', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
  // The button appears once the page has found a camera.
  await expect(page.getByRole('button', { name: 'F8 Camera' })).toBeVisible();
  await page.keyboard.press('F8');
  const camera = page.getByRole('region', { name: 'Camera scan' });
  await expect(camera).toBeVisible();
  await expect(door.scanField()).toBeFocused();
  await expect(page.locator('.result')).toHaveAttribute('data-outcome', 'checked_in', { timeout: 15_000 });
  await expect(page.locator('.result')).toContainText('Grace Hopper');
  await door.screenshot('60-camera');
  // The code stays in view: it is read once, not once per frame or every few seconds (two
  // polls of the counters, past the camera's 2.5 s repeat window, with frames all along).
  await door.afterPolls(2);
  await expect(page.locator('.result')).toHaveAttribute('data-outcome', 'checked_in');
  // The keyboard keeps working beside the camera; F8 puts it away.
  await door.scan(seed.guests.ada.barcode);
  await door.expectResult('checked_in', 'Ada Lovelace');
  await page.keyboard.press('F8');
  await expect(camera).toBeHidden();
  await expect(door.scanField()).toBeFocused();
  expect(await checkinsOf(server, seed.eventId, seed.guests.grace.id)).toHaveLength(1);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test('the viewfinder, the answer with its icon and the counter are all on the first screen', async ({ page }) => {
    const door = new DoorPage(page);
    await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
    await page.getByRole('button', { name: /Camera$/ }).tap();
    const video = page.getByRole('region', { name: 'Camera scan' }).locator('video');
    await expect(video).toBeVisible();
    // Grace's ticket again: already in since the test above.
    await expect(door.result()).toHaveAttribute('data-outcome', /checked_in/, { timeout: 15_000 });
    await door.screenshot('61-phone-camera');
    const frame = (await video.boundingBox())!;
    const answer = (await door.result().boundingBox())!;
    expect(frame.y + frame.height).toBeLessThanOrEqual(844);
    // The answer's headline and icon are above the fold, under the viewfinder.
    expect(answer.y).toBeGreaterThan(frame.y + frame.height - 1);
    expect(answer.y + 160).toBeLessThanOrEqual(844);
    await expect(door.result().locator('.result-icon')).toBeInViewport();
    await expect(page.getByTestId('mini-count')).toBeInViewport();
  });
});
