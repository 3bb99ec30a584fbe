import pino, { type DestinationStream, type Logger } from 'pino';
import { stdoutDestination } from './log-destination';

/**
 * Secrets that could reach a log line: the Authorization header of every request (tokens and
 * API keys, including the upstream key a follower sends) and any `key`, `password` or `token`
 * field logged by name (a venue's `credential` too). pino replaces them before the line is written.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'key',
  'upstream_key',
  'password',
  'token',
  'credential',
  '*.key',
  '*.upstream_key',
  '*.password',
  '*.token',
  '*.credential',
];

/**
 * The server's logger: every logger a server is started with comes from here, so no request
 * line carries a secret (a child logger with redact options of its own on top of this one
 * sends pino into a loop, so redaction is set here once).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  // stdout through a writer that drops lines it cannot write: the log never holds the process.
  return pino(options, destination ?? stdoutDestination);
}
