import { limitHeapGrowth } from './heap';

function fail(err: unknown): never {
  process.stderr.write(`Doorlist could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

/** `npm run serve`: the service and the door screen, headless. */
async function main(): Promise<void> {
  limitHeapGrowth();
  const [{ loadConfig }, { startServer }] = await Promise.all([import('./config'), import('./start')]);
  const running = await startServer(loadConfig());
  const stop = () => {
    running.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // The database's pages are checked beside the start: a damaged one ends it, as before listening.
  running.checked.catch((err) => running.close().finally(() => fail(err)));
}

main().catch(fail);
