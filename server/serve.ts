import { limitHeapGrowth } from './heap';
import { noteOnStderr } from './log-destination';

function fail(err: unknown): never {
  noteOnStderr(`Doorlist could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

/** `npm run serve`: the service and the door screen, headless. */
async function main(): Promise<void> {
  limitHeapGrowth();
  const [{ loadConfig }, { startServer }, { createLogger }, { logFatalFaults }] = await Promise.all([import('./config'), import('./start'), import('./logger'), import('./fatal-faults')]);
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  logFatalFaults(logger);
  const running = await startServer(config, { logger });
  const stop = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'stopping');
    running.close().finally(() => process.exit(0));
  };
  // SIGHUP too (the terminal that started it closed): a clean stop, logged, rather than a silent end.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stop);
  // The database's pages are checked beside the start: a damaged one ends it, as before listening.
  running.checked.catch((err) => running.close().finally(() => fail(err)));
}

main().catch(fail);
