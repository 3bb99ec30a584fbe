import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { SignInPage } from './pages/sign-in-page';
import { EventPickerPage } from './pages/event-picker-page';

const ROOT = path.resolve(__dirname, '..', '..');
let child: ChildProcess;
let dir: string;
let url: string;

// `npm run serve` as built (out/main/serve.js), not the in-process server: the screen it
// serves at `/` is found from the bundle's own location.
test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-serve-e2e-'));
  child = spawn(process.execPath, [path.join(ROOT, 'out', 'main', 'serve.js')], {
    cwd: ROOT,
    env: { ...process.env, DOORLIST_DB: path.join(dir, 'doorlist.sqlite'), DOORLIST_PORT: '0', DOORLIST_LOG_LEVEL: 'silent', DOORLIST_CHECK_REPLIES: '1', DOORLIST_ADMIN_USERNAME: 'boss', DOORLIST_ADMIN_PASSWORD: 'door-secret' },
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const match = /Doorlist listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
});

test.afterAll(() => {
  child?.kill('SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('npm run serve serves the door screen at / and the screen signs in', async ({ page }) => {
  const signIn = new SignInPage(page);
  await signIn.goto(url);
  await signIn.signIn('boss', 'door-secret');
  await expect(new EventPickerPage(page).heading()).toBeVisible();
  await expect(page.getByText('No events yet.')).toBeVisible();
});
