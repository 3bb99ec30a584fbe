import path from 'node:path';
import { defineConfig } from '@playwright/test';

/**
 * The files that build a LAN of network namespaces with a bridge in this machine's own
 * namespace. Every Chromium on the machine sees the bridge and its links come and go as a
 * network change and fails the requests it has on their way (net::ERR_NETWORK_CHANGED): a door
 * test beside them would see its server drop out. They run last, one at a time, alone.
 */
const LAN_OF_NAMESPACES = ['venue-takeover.spec.ts', 'venue-door-move.spec.ts'];

/**
 * The door screen in Debian's Chromium, served by the real server over a temporary
 * database. Two workers, a file each: every file starts its own server on a free port over
 * its own temporary database, so files never share state.
 */
export default defineConfig({
  testDir: __dirname,
  testMatch: '*.spec.ts',
  projects: [
    { name: 'door', testIgnore: LAN_OF_NAMESPACES },
    { name: 'lan of namespaces', testMatch: LAN_OF_NAMESPACES, workers: 1, dependencies: ['door'] },
  ],
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
    // A failed test keeps its trace (actions, DOM snapshots, network); no screencast: its frames
    // cost a fifth of the tier's CPU, and the failure's own screenshot shows the screen as it ended.
    trace: { mode: 'retain-on-failure', screenshots: false },
    screenshot: 'only-on-failure',
  },
});
