import path from 'node:path';
import { defineConfig } from '@playwright/test';

/**
 * The door screen in Debian's Chromium, served by the real server over a temporary
 * database. Two workers, a file each: every file starts its own server on a free port over
 * its own temporary database, so files never share state.
 */
export default defineConfig({
  testDir: __dirname,
  testMatch: '*.spec.ts',
  outputDir: path.join(__dirname, '..', '..', 'test-results', 'playwright'),
  globalSetup: path.join(__dirname, 'global-setup.ts'),
  fullyParallel: false,
  workers: 2,
  timeout: 60_000,
  expect: { timeout: 7_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
