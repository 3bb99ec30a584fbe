import type { Logger } from 'pino';
import { noteOnStderr } from './log-destination';

/** The exit status of a process ended by a fault of its own (EX_SOFTWARE). */
export const FATAL_EXIT_CODE = 70;

function describeFault(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/**
 * Every fault that ends the process says why first: on stderr (one block, what a terminal or a
 * service manager keeps) and as a `fatal` log line, then the process exits non-zero. An
 * unhandled rejection reaches the same listener (Node's default `--unhandled-rejections=throw`
 * raises it as an uncaught exception, origin `unhandledRejection`). What Node cannot hand to
 * JavaScript (SIGKILL, and SIGBUS or SIGSEGV from a memory-mapped file cut short, such as a
 * truncated `-shm`) is told by whoever started the process; docs/security.md says how.
 */
export function logFatalFaults(logger?: Logger): void {
  process.on('uncaughtException', (err, origin) => {
    try {
      logger?.fatal({ err, origin }, 'Doorlist stopped by a fault');
    } finally {
      // Straight to the descriptor, never throwing: stderr on a full disk must not stop the exit.
      noteOnStderr(`Doorlist stopped by a fault (${origin}): ${describeFault(err)}\n`);
      process.exit(FATAL_EXIT_CODE);
    }
  });
}
