import { performance } from 'node:perf_hooks';
import pino, { type Logger } from 'pino';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';

declare module 'http' {
  interface IncomingMessage {
    /** The server's logger, for requestLog. */
    logger?: Logger;
    id: number;
  }
}

/**
 * A logger whose every line carries the request (headers redacted), made when a line is to be
 * written: pino serialises a child's bindings when the child is made, and at a door laptop's
 * `warn` level that was about a fifth of a scan's CPU for a line never written. Undefined for
 * a request requestLogging did not see.
 */
export function requestLog(req: IncomingMessage): Logger | undefined {
  return req.logger?.child({ req: pino.stdSerializers.req(req) });
}

/**
 * Logs each API request once it is answered (at `info`). The request only gets plain data
 * properties: a getter defined on each request (Object.defineProperty) gave every request an
 * object shape of its own, which V8 keeps in its old generation, and with it everything the
 * request touched until the next full collection.
 */
export function requestLogging(logger: Logger, prefix: string): RequestHandler {
  let lastId = 0;
  return (req, res, next) => {
    req.id = ++lastId;
    req.logger = logger;
    if (logger.isLevelEnabled('info') && req.originalUrl.startsWith(prefix)) {
      const started = performance.now();
      res.once('close', () => {
        const line = { res: pino.stdSerializers.res(res), responseTime: Math.round(performance.now() - started) };
        requestLog(req)?.info(line, res.writableFinished ? 'request completed' : 'request aborted');
      });
    }
    next();
  };
}
