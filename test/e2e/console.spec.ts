import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { DoorServer } from './door-server';
import { ConsolePage } from './pages/console-page';
import { DoorPage } from './pages/door-page';
import { EventPickerPage } from './pages/event-picker-page';
import { SignInPage } from './pages/sign-in-page';

const ADMIN = { username: 'organiser', password: 'first-run-secret' };
const EVENT = 'Aurora Summit';

/** 300 guests; three rows the server must refuse (spreadsheet rows 52, 122 and 252). */
function guestCsv(): string {
  const lines = ['First name,Last name,Email,Company,Barcode,Shoe size'];
  for (let i = 1; i <= 300; i++) {
    const code = `AUR-${String(i).padStart(4, '0')}`;
    if (i === 51) lines.push(`,Nobody,nobody@example.com,Acme,${code},40`);
    else if (i === 121) lines.push(`${'x'.repeat(300)},Long,long@example.com,Acme,${code},40`);
    else if (i === 251) lines.push(`Twin,Code,twin@example.com,Acme,AUR-0010,40`);
    else lines.push(`Guest${i},Person${i},guest${i}@example.com,Company ${i % 7},${code},40`);
  }
  return `${lines.join('\n')}\n`;
}

let server: DoorServer;

test.beforeEach(async () => {
  server = await DoorServer.start({ empty: true });
});

test.afterEach(async () => {
  await server?.dispose();
});

test('from an empty database: administrator, event set up on screen, 300-row CSV, a scan, and a door user who cannot set up', async ({ page }) => {
  // The longest walk of the suite (25-50 s on a loaded 2-core machine): three times the timeout.
  test.slow();
  const console_ = new ConsolePage(page);
  await page.goto(server.url);
  await console_.createAdministrator(ADMIN.username, ADMIN.password);
  await console_.screenshot('console-groups-empty');

  // A form shows the server's own words beside the field.
  await page.getByRole('button', { name: 'Add group' }).click();
  const groupForm = console_.dialog('Add group');
  await groupForm.getByLabel('E-mail').fill('not an address');
  await groupForm.getByRole('button', { name: 'Create' }).click();
  await expect(console_.fieldError(groupForm, 'Name')).toHaveText('This field is required.');
  await expect(console_.fieldError(groupForm, 'E-mail')).toHaveText('Enter a valid email address.');
  await groupForm.getByRole('button', { name: 'Cancel' }).click();
  await console_.addGroup('Aurora Events');
  await console_.screenshot('console-groups');

  await console_.nav('Events');
  await page.getByRole('button', { name: 'Add event' }).click();
  const eventForm = console_.dialog('Add event');
  await eventForm.getByLabel('Name').fill(EVENT);
  // A real zone outside the list is answered with the accepted one that keeps the same clock.
  const zone = eventForm.getByRole('combobox', { name: 'Timezone' });
  await zone.fill('Europe/Berlin');
  await expect(eventForm.getByTestId('timezone-suggestion')).toHaveText('Europe/Berlin is not in the list; Europe/Amsterdam has the same clock. Use Europe/Amsterdam');
  await console_.screenshot('console-event-timezone-hint');
  await eventForm.getByRole('button', { name: 'Use Europe/Amsterdam' }).click();
  await expect(zone).toHaveValue('Europe/Amsterdam');
  await expect(eventForm.getByTestId('timezone-suggestion')).toBeHidden();
  const startsCalendar = eventForm.getByRole('button', { name: 'Pick a date for Starts' });
  await startsCalendar.click();
  await console_.screenshot('console-event-calendar');
  await startsCalendar.click();
  await console_.pickDay(eventForm, 'Starts', 10, '18:00');
  await console_.pickDay(eventForm, 'Ends', 11, '02:00', '23:00');
  await console_.screenshot('console-event-form');
  await eventForm.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('heading', { name: EVENT })).toBeVisible();

  await page.getByRole('button', { name: 'Add registration type' }).click();
  const typeForm = console_.dialog('Add registration type');
  await typeForm.getByLabel('Name').fill('General admission');
  await typeForm.getByLabel('Description').fill('Standing');
  await typeForm.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('table')).toContainText('General admission');
  await console_.screenshot('console-registration-types');

  await console_.tab('Questions');
  await page.getByRole('button', { name: 'Add question' }).click();
  const questionForm = console_.dialog('Add question');
  await questionForm.getByLabel('Question', { exact: true }).fill('Meal?');
  await questionForm.getByLabel('Choices (one per line)').fill('Fish\nVeggie');
  await questionForm.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('table')).toContainText('Fish · Veggie');
  await console_.screenshot('console-questions');

  // Duplicate, and give the copy its own name.
  await page.getByRole('button', { name: 'Duplicate' }).click();
  await expect(page.getByRole('status')).toContainText('Copy created:');
  await page.getByRole('status').getByRole('link', { name: `open “${EVENT} (copy)”` }).click();
  await expect(page.getByRole('heading', { name: `${EVENT} (copy)` })).toBeVisible();
  await page.locator('.event-head').getByRole('button', { name: 'Edit', exact: true }).click();
  const copyForm = console_.dialog(`Edit ${EVENT} (copy)`);
  await copyForm.getByLabel('Name').fill('Winter Fair');
  await copyForm.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('heading', { name: 'Winter Fair' })).toBeVisible();
  await console_.nav('Events');
  await expect(page.getByRole('table')).toContainText('Winter Fair');
  await console_.screenshot('console-events');
  await page.getByRole('link', { name: EVENT }).click();

  await console_.tab('Sessions');
  await page.getByRole('button', { name: 'Add session' }).click();
  const sessionForm = console_.dialog('Add session');
  await sessionForm.getByLabel('Name', { exact: true }).fill('Keynote');
  await sessionForm.getByLabel('Starts (Europe/Amsterdam)', { exact: true }).fill('2026-12-10T17:00');
  await sessionForm.getByLabel('Ends (Europe/Amsterdam)', { exact: true }).fill('2026-12-10T16:00');
  // What capacity and overbooking mean, under the fields: the door admits no more, with access control or without.
  await expect(sessionForm.getByRole('textbox', { name: 'Capacity', exact: true })).toHaveAccessibleDescription(/The door lets no more in, registered or not/);
  await expect(sessionForm.getByRole('textbox', { name: 'Overbooking allowed', exact: true })).toHaveAccessibleDescription(/the door stops at capacity plus this/);
  await console_.screenshot('console-session-form');
  await sessionForm.getByRole('button', { name: 'Create' }).click();
  await expect(console_.fieldError(sessionForm, 'Starts (Europe/Amsterdam)')).toHaveText('Session start date cannot be later than end date.');
  await sessionForm.getByLabel('Ends (Europe/Amsterdam)', { exact: true }).fill('2026-12-10T18:00');
  await sessionForm.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('table')).toContainText('Keynote');
  await console_.screenshot('console-sessions');

  // CSV: the dry run lists the three bad rows with the server's messages; the rest goes in.
  await console_.tab('CSV import and export');
  const csv = test.info().outputPath('guests.csv');
  fs.writeFileSync(csv, guestCsv());
  await page.getByLabel('CSV file').setInputFiles(csv);
  await expect(page.getByRole('heading', { name: 'Columns (300 rows)' })).toBeVisible();
  // Every column says what it becomes, before any check: none is dropped silently.
  await expect(page.locator('[data-becomes="Email"]')).toHaveText('E-mail');
  await expect(page.locator('[data-becomes="Shoe size"]')).toHaveText('Not imported: no field or question has this name');
  await page.getByRole('button', { name: 'Check the file' }).click();
  await expect(page.getByText('Rows that cannot be imported: 3. Nothing has been written yet.')).toBeVisible();
  const badRows = page.locator('.bad-rows tbody tr');
  await expect(badRows).toHaveCount(3);
  await expect(badRows.nth(0)).toContainText('52');
  await expect(badRows.nth(0)).toContainText('First name');
  await expect(badRows.nth(1)).toContainText('122');
  await expect(badRows.nth(1)).toContainText('Ensure this field has no more than 255 characters.');
  await expect(badRows.nth(2)).toContainText('252');
  await expect(badRows.nth(2)).toContainText('Barcode: "AUR-0010" is also in row 11.');
  await badRows.first().scrollIntoViewIfNeeded();
  await console_.screenshot('console-csv-import');
  await page.getByRole('button', { name: 'Import the other 297 rows' }).click();
  await expect(page.getByText('Guests imported: 297.')).toBeVisible();

  await console_.tab('Guests');
  await expect(page.getByText('Guests: 297')).toBeVisible();
  await page.getByRole('searchbox').fill('guest42@');
  await expect(page.getByText('Guests: 1')).toBeVisible();
  // An answer to the event's question, kept; then the guest deactivated.
  await page.getByRole('button', { name: 'Guest42 Person42' }).click();
  const guest42 = console_.dialog('Guest42 Person42');
  await guest42.getByLabel('Meal?').selectOption({ label: 'Fish' });
  await guest42.getByRole('button', { name: 'Save changes' }).click();
  await expect(guest42).toBeHidden();
  await page.getByRole('button', { name: 'Guest42 Person42' }).click();
  await expect(guest42.getByLabel('Meal?').locator('option:checked')).toHaveText('Fish');
  await console_.screenshot('console-guest');
  await guest42.getByRole('button', { name: 'Deactivate' }).click();
  await expect(guest42).toBeHidden();
  await expect(page.locator('.guest-tr', { hasText: 'Guest42 Person42' })).toContainText('Inactive');
  await page.getByRole('searchbox').fill('');
  await expect(page.getByText('Guests: 297')).toBeVisible();
  await console_.screenshot('console-guests');

  await console_.tab('Event file');
  await console_.screenshot('console-event-file');
  await console_.tab('Promotion codes');
  await page.getByRole('button', { name: 'Add promotion code' }).click();
  const codeForm = console_.dialog('Add promotion code');
  await codeForm.getByLabel('Code', { exact: true }).fill('EARLY');
  await codeForm.getByLabel('Discount', { exact: true }).fill('10');
  await codeForm.getByLabel('Uses', { exact: true }).fill('50');
  await codeForm.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('table')).toContainText('EARLY');
  await expect(page.getByRole('table')).toContainText('0 / 50');
  await console_.screenshot('console-promotion-codes');

  // The door is one click away.
  await page.evaluate(() => localStorage.setItem('doorlist.station', 'Front door'));
  await page.getByRole('navigation', { name: 'Door or console' }).getByRole('link', { name: 'Door' }).click();
  await new EventPickerPage(page).pick(EVENT);
  const door = new DoorPage(page);
  await expect(door.scanField()).toBeFocused();
  await door.scan('AUR-0007');
  await door.expectResult('checked_in', 'Guest7 Person7');
  await console_.screenshot('console-door-one-click-away');

  // Back in the console: the guest's check-in history, and undo.
  await page.getByRole('navigation', { name: 'Door or console' }).getByRole('link', { name: 'Console' }).click();
  await console_.nav('Events');
  await page.getByRole('link', { name: EVENT }).click();
  await console_.tab('Guests');
  await page.getByRole('searchbox').fill('guest7@');
  await page.getByRole('button', { name: 'Guest7 Person7' }).click();
  const guest = console_.dialog('Guest7 Person7');
  const history = guest.getByRole('region', { name: 'Check-in history' });
  await expect(history).toContainText('Checked in');
  await expect(history).toContainText('Front door');
  await console_.screenshot('console-guest-history');
  await history.getByRole('button', { name: 'Undo' }).click();
  await expect(history).toContainText('undone at');
  await page.keyboard.press('Escape');
  await expect(page.locator('.guest-tr', { hasText: 'Guest7 Person7' })).not.toContainText('In since');

  // A door user: the console is hidden from them and the API refuses them set-up.
  await console_.nav('Keys and users');
  await page.getByRole('button', { name: 'Add user' }).click();
  const userForm = console_.dialog('Add user');
  await userForm.getByLabel('Username').fill('door-anna');
  await userForm.getByLabel('Password').fill('anna-door-secret');
  await userForm.getByLabel('Role').selectOption('door');
  await userForm.getByRole('button', { name: 'Create' }).click();
  await expect(page.locator('.plain-list')).toContainText('door-anna');
  await page.getByRole('textbox', { name: 'Name of the key' }).fill('Phone at the side door');
  await page.getByRole('button', { name: 'Create key' }).click();
  const keyDialog = console_.dialog('New key: Phone at the side door');
  await keyDialog.getByLabel('Address phones open').fill('https://192.168.1.20:8788');
  await expect(keyDialog.getByRole('img', { name: 'QR code that signs a phone in with this key' })).toBeVisible();
  const doorKey = await keyDialog.getByRole('textbox', { name: 'Key' }).inputValue();
  await console_.screenshot('console-keys-and-users');
  await page.keyboard.press('Escape');

  await page.getByRole('navigation', { name: 'Console' }).getByRole('button', { name: 'Sign out' }).click();
  await new SignInPage(page).signIn('door-anna', 'anna-door-secret');
  await expect(new EventPickerPage(page).heading()).toBeVisible();
  await expect(page.getByRole('link', { name: 'Console' })).toHaveCount(0);
  await page.goto(`${server.url}/#/console`);
  await expect(new EventPickerPage(page).heading()).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Console' })).toHaveCount(0);

  const doorToken = await page.evaluate(() => localStorage.getItem('doorlist.token'));
  const refused = await server.request('POST', '/groups', { name: 'Not allowed' }, doorToken);
  expect(refused).toEqual({ status: 403, body: { detail: 'Your role does not allow this.' } });

  // The QR code's address signs a phone in with the door key: the door, no console.
  await page.goto(`${server.url}/#key=${encodeURIComponent(doorKey)}`);
  await expect(new EventPickerPage(page).heading()).toBeVisible();
  expect(await page.evaluate(() => [localStorage.getItem('doorlist.token'), window.location.hash])).toEqual([doorKey, '']);
  await expect(page.getByRole('link', { name: 'Console' })).toHaveCount(0);
});

test('a second empty laptop imports the event file exported by the first, from the screen, and scans', async ({ page }) => {
  const laptopB = await DoorServer.start({ empty: true });
  try {
    const console_ = new ConsolePage(page);
    await page.goto(server.url);
    await console_.createAdministrator(ADMIN.username, ADMIN.password);
    const token = await page.evaluate(() => localStorage.getItem('doorlist.token'));
    const as = async (status: number, method: string, url: string, body: unknown) => {
      const answer = await server.request(method, url, body, token);
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      return answer.body;
    };
    const group = await as(201, 'POST', '/groups', { name: 'Aurora Events' });
    const event = await as(201, 'POST', '/events', { name: EVENT, group_id: group.id, timezone: 'Europe/Amsterdam', starts: '2026-12-10T18:00', ends: '2026-12-11T02:00' });
    const type = await as(201, 'POST', `/events/${event.id}/registration_types`, { type: 'ticket', name: 'General', description: '' });
    await as(201, 'POST', `/events/${event.id}/guests`, { registration_type: type.id, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', barcode: 'ADA-1' });

    await page.goto(`${server.url}/#/console/events/${event.id}/file`);
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export event file' }).click();
    const file = test.info().outputPath((await downloading).suggestedFilename());
    await (await downloading).saveAs(file);
    await expect(page.getByRole('status')).toContainText('Saved');

    // Laptop B has no user, no group, no event.
    await page.evaluate(() => localStorage.clear());
    await page.goto(laptopB.url);
    await console_.createAdministrator('second', 'second-laptop-secret');
    await console_.nav('Events');
    await page.getByLabel('Event file', { exact: true }).setInputFiles(file);
    await page.getByRole('button', { name: 'Import' }).click();
    const result = page.locator('.result-box');
    await expect(result).toContainText('A new event was created.');
    await expect(result).toContainText('Added: 3 records (guests: 1)');
    await expect(page.getByRole('table')).toContainText(EVENT);
    await console_.screenshot('console-event-file-import');
    await result.getByRole('button', { name: 'Open the event' }).click();
    await expect(page.getByRole('heading', { name: EVENT })).toBeVisible();

    await page.evaluate(() => localStorage.setItem('doorlist.station', 'Laptop B'));
    await page.getByRole('button', { name: 'Open the door screen' }).click();
    const door = new DoorPage(page);
    await expect(door.scanField()).toBeFocused();
    await door.scan('ADA-1');
    await door.expectResult('checked_in', 'Ada Lovelace');
  } finally {
    await laptopB.dispose();
  }
});
