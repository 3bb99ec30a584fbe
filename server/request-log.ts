import { performance } from 'node:perf_hooks';
import pino, { type Logger } from 'pino';
import type { RequestHandler } from 'express';

declare module 'http' {
  interface IncomingMessage {
    /** This request's logger: every line it writes carries the request (headers redacted). */
    log: Logger;
    id: number;
  }
}

/**
 * Logs each API request once it is answered (at `info`), and gives every request `req.log` for
 * the error handler. The request's child logger is made on first use: pino serialises a
 * child's bindings when the child is made, and at a door laptop's `warn` level that
 * serialising was about a fifth of a scan's CPU, for a line never written.
 */
export function requestLogging(logger: Logger, prefix: string): RequestHandler {
  let lastId = 0;
  return (req, res, next) => {
    req.id = ++lastId;
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', {
      configurable: true,
      get: () => (child ??= logger.child({ req: pino.stdSerializers.req(req) })),
    });
    if (logger.isLevelEnabled('info') && req.originalUrl.startsWith(prefix)) {
      const started = performance.now();
      res.once('close', () => {
        const line = { res: pino.stdSerializers.res(res), responseTime: Math.round(performance.now() - started) };
        req.log.info(line, res.writableFinished ? 'request completed' : 'request aborted');
      });
    }
    next();
  };
}
