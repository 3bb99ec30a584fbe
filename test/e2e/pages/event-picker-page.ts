import type { Page } from '@playwright/test';

export class EventPickerPage {
  constructor(readonly page: Page) {}

  heading() {
    return this.page.getByRole('heading', { name: 'Pick the event' });
  }

  async pick(name: string): Promise<void> {
    await this.page.getByRole('button', { name: new RegExp(`^${name}`) }).click();
  }
}
