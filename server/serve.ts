import { loadConfig } from './config';
import { startServer } from './start';

/** `npm run serve`: the service and the door screen, headless. */
async function main(): Promise<void> {
  const running = await startServer(loadConfig());
  const stop = () => {
    running.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  process.stderr.write(`Doorlist could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
