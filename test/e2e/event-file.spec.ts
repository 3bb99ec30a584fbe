import { expect, test } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { openWithStorage } from './pages/browser-data';
import { checkinsOf, seedEvent, type Seed } from './seed';

let laptopA: DoorServer;
let laptopB: DoorServer;
let seed: Seed;

test.beforeAll(async () => {
  laptopA = await DoorServer.start();
  laptopB = await DoorServer.start();
  seed = await seedEvent(laptopA);
});

test.afterAll(async () => {
  await laptopA?.dispose();
  await laptopB?.dispose();
});

test('exports the event file from one laptop and imports it on another, with counts', async ({ page }) => {
  const door = new DoorPage(page);
  await door.open(laptopA.url, laptopA.adminToken, { id: seed.eventId, name: seed.eventName });
  await door.scan(seed.guests.ada.barcode);
  await door.expectResult('checked_in', 'Ada Lovelace');

  await page.getByRole('button', { name: 'Export' }).click();
  const exportDialog = page.getByRole('dialog', { name: `Export “${seed.eventName}”` });
  const downloading = page.waitForEvent('download');
  await exportDialog.getByRole('button', { name: 'Export event file' }).click();
  const download = await downloading;
  const file = test.info().outputPath(download.suggestedFilename());
  await download.saveAs(file);
  await expect(exportDialog).toContainText(`Downloaded ${download.suggestedFilename()}`);
  await page.keyboard.press('Escape');

  // Laptop B: a group to put the new event in, then the import from the event picker.
  await laptopB.must(201, 'POST', '/groups', { name: 'Door team B' });
  await openWithStorage(page, laptopB.url, '/', { 'doorlist.token': laptopB.adminToken });
  await page.getByRole('button', { name: 'Import event file' }).click();
  const importDialog = page.getByRole('dialog', { name: 'Import an event file' });
  await importDialog.getByLabel('Event file').setInputFiles(file);
  await expect(importDialog.getByRole('status')).toContainText('A new event was created.');
  await expect(importDialog).toContainText('Check-ins added: 1');
  await expect(importDialog).toContainText('Added: 16 records (guests: 12)');
  await door.screenshot('50-import-result');
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: new RegExp(`^${seed.eventName}`) }).click();
  await door.scan(seed.guests.ada.barcode);
  await door.expectResult('already_checked_in', 'Ada Lovelace');

  const events = await laptopB.must<{ results: { id: number }[] }>(200, 'GET', '/events');
  expect(await checkinsOf(laptopB, events.results[0].id)).toHaveLength(1);
});
