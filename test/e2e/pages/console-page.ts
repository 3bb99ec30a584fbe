import { expect, type Locator, type Page } from '@playwright/test';
import { CONSOLE_PICTURES, wideAndPhone } from '../screenshots';

/** The first-run screen and the organiser's console, as an organiser uses them. */
export class ConsolePage {
  constructor(readonly page: Page) {}

  async createAdministrator(username: string, password: string): Promise<void> {
    await expect(this.page.getByRole('heading', { name: 'Welcome to Doorlist' })).toBeVisible();
    await this.page.getByLabel('Username').fill(username);
    await this.page.getByLabel('Password', { exact: true }).fill(password);
    await this.page.getByLabel('Password again').fill(password);
    await this.page.getByRole('button', { name: 'Create the administrator' }).click();
    await expect(this.page.getByRole('heading', { name: 'Groups' })).toBeVisible();
  }

  nav(name: 'Groups' | 'Events' | 'Keys and users'): Promise<void> {
    return this.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name }).click();
  }

  tab(name: string): Promise<void> {
    return this.page.getByRole('navigation', { name: 'Parts of the event' }).getByRole('link', { name }).click();
  }

  dialog(name: string | RegExp): Locator {
    return this.page.getByRole('dialog', { name });
  }

  /** The message shown beside a field of the open form. */
  fieldError(form: Locator, label: string): Locator {
    return form.locator('label.field, .field', { has: this.page.getByText(label, { exact: true }) }).locator('.field-error');
  }

  async addGroup(name: string): Promise<void> {
    await this.nav('Groups');
    await this.page.getByRole('button', { name: 'Add group' }).click();
    const dialog = this.dialog('Add group');
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog).toBeHidden();
    await expect(this.page.locator('.group-tree')).toContainText(name);
  }

  /**
   * Picks a day of the shown month on the field's calendar: the time already in the field stays,
   * an empty field gets `defaultTime` (18:00 for a start, 23:00 for an event's end); then types the time.
   */
  async pickDay(form: Locator, label: string, day: number, time: string, defaultTime = '18:00'): Promise<void> {
    const input = form.getByLabel(label, { exact: true });
    const before = /T(\d\d:\d\d)$/.exec(await input.inputValue())?.[1] ?? defaultTime;
    await form.getByRole('button', { name: `Pick a date for ${label}` }).click();
    await form.locator('.calendar-pop').getByRole('button', { name: new RegExp(`\\b${day}(st|nd|rd|th)?\\b`) }).first().click();
    await expect(input).toHaveValue(new RegExp(`-${String(day).padStart(2, '0')}T${before}$`));
    await input.fill((await input.inputValue()).replace(/T\d\d:\d\d$/, `T${time}`));
  }

  /** 1280x800 and a phone, for the guides in docs/; the caller looks at them. */
  async screenshot(name: string): Promise<void> {
    await wideAndPhone(this.page, CONSOLE_PICTURES, name);
  }
}
