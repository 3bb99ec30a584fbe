import type { Page } from '@playwright/test';

export class SignInPage {
  constructor(readonly page: Page) {}

  async goto(baseUrl: string): Promise<void> {
    await this.page.goto(`${baseUrl}/`);
  }

  async signIn(username: string, password: string): Promise<void> {
    await this.page.getByRole('tab', { name: 'Username' }).click();
    await this.page.getByLabel('Username').fill(username);
    await this.page.getByLabel('Password').fill(password);
    await this.page.getByRole('button', { name: 'Sign in' }).click();
  }

  async signInWithKey(key: string): Promise<void> {
    await this.page.getByRole('tab', { name: 'API key' }).click();
    await this.page.getByLabel('API key').fill(key);
    await this.page.getByRole('button', { name: 'Sign in' }).click();
  }

  error() {
    return this.page.getByRole('alert');
  }
}
