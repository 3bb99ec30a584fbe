/**
 * The badge worker with faults on cue, for test/api/badges.test.ts (StartOptions.badgeWorkerFile).
 * Before the real worker sees a part to draw, a guest's first name decides:
 * - `Crash`: the worker thread stops, every time;
 * - `Flaky`: it stops the first time only (a file in DOORLIST_TEST_BADGE_FAULTS remembers);
 * - `Hold`: the whole worker waits until the file `release` exists in that folder, so the
 *   test can fill the badge slots and queue without a race.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import type { ToWorker } from '../../server/badges/worker';

const dir = process.env.DOORLIST_TEST_BADGE_FAULTS ?? '';
const pause = new Int32Array(new SharedArrayBuffer(4));

parentPort!.on('message', (message: ToWorker) => {
  if (message.op !== 'draw') return;
  const names = message.guests.map((g) => g.first_name);
  if (names.includes('Crash')) process.exit(3);
  if (names.includes('Flaky') && !fs.existsSync(path.join(dir, 'flaky-done'))) {
    fs.writeFileSync(path.join(dir, 'flaky-done'), '');
    process.exit(3);
  }
  // Waiting on a condition (the file), in the worker: nothing else is drawn meanwhile.
  while (names.includes('Hold') && !fs.existsSync(path.join(dir, 'release'))) Atomics.wait(pause, 0, 0, 10);
});

// Registered after the listener above, so it sees each message first.
require('../../server/badges/worker');
