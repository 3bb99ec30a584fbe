/**
 * Loaded into a server process with `--import` by test/api/faults.test.ts: on SIGUSR2 it
 * raises the fault DOORLIST_TEST_FAULT names, as a bug would, so the test can see the
 * process say why it stops.
 */
process.on('SIGUSR2', () => {
  if (process.env.DOORLIST_TEST_FAULT === 'rejection') void Promise.reject(new Error('injected rejection'));
  else throw new Error('injected exception');
});
