import { expect, test } from '@playwright/test';
import { CONSOLE_PICTURES, picture } from './screenshots';
import { ServeProcess } from './serve-process';

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
  // Swagger UI parses its 1.5 MB bundle and the whole document before it draws: seconds on a busy machine.
  await expect(page.getByRole('heading', { name: /Doorlist event-management API/ })).toBeVisible({ timeout: 60_000 });
  const scan = page.locator('.opblock-post').filter({ hasText: '/events/{event_id}/checkins' }).first();
  await expect(scan).toBeVisible();
  await picture(page, CONSOLE_PICTURES, 'api-reference');
  // A route opened: its declared answers, down to the fields of the scan's guest.
  await scan.locator('.opblock-summary-control').click();
  await expect(scan.getByText(/registration_type_attention/).first()).toBeVisible();
  expect(elsewhere).toEqual([]);
});
