import { expect, test, type Page } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { EventPickerPage } from './pages/event-picker-page';

let server: DoorServer;

test.beforeEach(async () => {
  server = await DoorServer.start();
});

test.afterEach(async () => {
  await server?.dispose();
});

/** A station signed in with the admin's token and no event chosen yet: the picker. */
async function openPicker(page: Page, language?: string): Promise<EventPickerPage> {
  if (language) await page.addInitScript((lang) => localStorage.setItem('doorlist.language', lang), language);
  await page.goto(`${server.url}/`);
  await page.evaluate((token) => localStorage.setItem('doorlist.token', token), server.adminToken);
  await page.reload();
  return new EventPickerPage(page);
}

test('the picker tells a duplicated event and a namesake in another group apart by name, date and group', async ({ page }) => {
  const acme = await server.must<{ id: number }>(201, 'POST', '/groups', { name: 'Acme Events', email: 'office@acme.test' });
  const other = await server.must<{ id: number }>(201, 'POST', '/groups', { name: 'Harbour Club', email: 'desk@harbour.test' });
  const gala = await server.must<{ id: number }>(201, 'POST', '/events', { name: 'Gala', group_id: acme.id, timezone: 'Europe/Amsterdam', starts: '2026-12-31T20:00', ends: '2027-01-01T02:00' });
  await server.must(200, 'POST', `/events/${gala.id}/duplicate_event`, { quantity: 1 });
  await server.must(201, 'POST', '/events', { name: 'Gala', group_id: other.id, timezone: 'US/Eastern', starts: '2026-12-05T19:30', ends: '2026-12-05T23:00' });

  const picker = await openPicker(page);
  await expect(picker.heading()).toBeVisible();
  const choices = page.locator('.event-choice');
  await expect(choices).toHaveCount(3);
  const copy = page.getByRole('button', { name: /^Gala \(copy\)/ });
  await expect(copy).toContainText('Starts Dec 31, 2026, 8:00 PM (Europe/Amsterdam)');
  await expect(copy).toContainText('Group: Acme Events');
  const namesake = page.getByRole('button', { name: /^Gala(?! \(copy\))/ }).filter({ hasText: 'Harbour Club' });
  await expect(namesake).toContainText('Starts Dec 5, 2026, 7:30 PM (US/Eastern)');
  await new DoorPage(page).screenshot('70-picker-date-group');
});

test('an empty picker sends a manager to the console to create the first event', async ({ page }) => {
  const picker = await openPicker(page);
  await expect(picker.heading()).toBeVisible();
  await expect(page.getByText('No events yet.')).toBeVisible();
  await expect(page.getByText('Create one through the API')).toHaveCount(0);
  await new DoorPage(page).screenshot('71-picker-empty');
  await page.getByRole('link', { name: 'Create one in the console' }).click();
  await expect(page).toHaveURL(/#\/console\/events$/);
  await expect(page.getByRole('button', { name: 'Add event' })).toBeVisible();
});

test('the picker and the event file dialog speak French', async ({ page }) => {
  const group = await server.must<{ id: number }>(201, 'POST', '/groups', { name: 'Acme Events', email: 'office@acme.test' });
  await server.must(201, 'POST', '/events', { name: 'Soirée', group_id: group.id, timezone: 'Europe/Brussels', starts: '2026-12-31T20:00', ends: '2027-01-01T02:00' });
  await openPicker(page, 'fr');
  await expect(page.getByRole('heading', { name: 'Choisir l’événement' })).toBeVisible();
  await expect(page.getByRole('button', { name: /^Soirée/ })).toContainText('Groupe : Acme Events');
  await expect(page.getByRole('button', { name: /^Soirée/ })).toContainText('(Europe/Brussels)');
  await page.getByRole('button', { name: 'Importer un fichier d’événement' }).click();
  const dialog = page.getByRole('dialog', { name: 'Importer un fichier d’événement' });
  await expect(dialog).toContainText('Groupe d’un nouvel événement');
  await new DoorPage(page).screenshot('72-picker-import-fr');
});

test('a timezone the API does not take reads as one short line, the field suggesting the accepted ones', async ({ page }) => {
  await server.must(201, 'POST', '/groups', { name: 'Acme Events', email: 'office@acme.test' });
  await openPicker(page);
  await page.goto(`${server.url}/#/console/events`);
  await page.getByRole('button', { name: 'Add event' }).click();
  const form = page.getByRole('dialog', { name: 'Add event' });
  await form.getByLabel('Name').fill('Gala');
  const zone = form.getByRole('combobox', { name: 'Timezone' });
  await zone.fill('Europe/Paris');
  await expect(form.locator('datalist option')).toHaveCount(39);
  await form.getByRole('textbox', { name: /^Starts/ }).fill('2026-12-31T20:00');
  await form.getByRole('textbox', { name: /^Ends/ }).fill('2027-01-01T02:00');
  await form.getByRole('button', { name: 'Create' }).click();
  // A real zone outside the list is answered with the accepted one on the same clock (console.spec).
  await expect(form.getByTestId('timezone-suggestion')).toHaveText('Europe/Paris is not in the list; Europe/Amsterdam has the same clock. Use Europe/Amsterdam');
  // A name that is no zone at all reads as the one short line.
  await zone.fill('Mars/Olympus');
  await form.getByRole('button', { name: 'Create' }).click();
  const error = form.locator('label.field', { has: page.getByText('Timezone', { exact: true }) }).locator('.field-error');
  await expect(error).toHaveText('“Mars/Olympus” is not one of the accepted timezones; pick one from the suggestions.');
  await expect(form).not.toContainText('Pacific/Kwajalein');
  await new DoorPage(page).screenshot('73-timezone-error');
});
