import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ServeProcess } from './serve-process';

const SCREENSHOT = path.join(__dirname, '..', '..', 'docs', 'screenshots', 'api-reference.png');

let server: ServeProcess;

// `npm run serve` as built: the bundle must find the renderer's files in node_modules itself.
test.beforeAll(async () => {
  server = await ServeProcess.start();
});

test.afterAll(async () => {
  await server?.dispose();
});

test('the API reference renders from this server alone, with no network beyond it', async ({ page }) => {
  const elsewhere: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === new URL(server.url).origin) return route.continue();
    elsewhere.push(url.href);
    return route.abort();
  });
  await page.goto(`${server.url}/api/v1/docs`);
  await expect(page.getByRole('heading', { name: /Doorlist/ })).toBeVisible();
  const checkins = page.locator('.opblock-summary-path', { hasText: '/events/{event_id}/checkins' }).first();
  await expect(checkins).toBeVisible();
  // A route opened: its declared answers, the scan's guest among them.
  await page.locator('.opblock-post', { has: page.locator('[data-path="/events/{event_id}/checkins"]') }).first().locator('.opblock-summary').click();
  await expect(page.getByText('ScanAccepted').first()).toBeVisible();
  await page.screenshot({ path: SCREENSHOT });
  expect(elsewhere).toEqual([]);
});
