import path from 'node:path';
import { limitHeapGrowth } from './heap';
import { noteOnStderr } from './log-destination';
import { requireWithCodeCache } from './code-cache';

type Start = typeof import('./start');

function fail(err: unknown): never {
  noteOnStderr(`Doorlist could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

/**
 * The server's modules. Built (out/main/serve.js), out/main/start.js is compiled with a code
 * cache beside it (server/code-cache.ts), which `keep` writes after the first start; from
 * source (tsx) they are imported as they are.
 */
async function loadStart(): Promise<{ start: Start; keep: () => void }> {
  if (path.extname(__filename) !== '.js') return { start: await import('./start'), keep: () => undefined };
  const cached = requireWithCodeCache<Start>(path.join(__dirname, 'start.js'));
  return { start: cached.exports, keep: cached.keep };
}

/** `npm run serve`: the service and the door screen, headless. */
async function main(): Promise<void> {
  limitHeapGrowth();
  const [{ loadConfig }, { start: { startServer }, keep }, { createLogger }, { logFatalFaults }] = await Promise.all([import('./config'), loadStart(), import('./logger'), import('./fatal-faults')]);
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  logFatalFaults(logger);
  const running = await startServer(config, { logger });
  setImmediate(keep);
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
