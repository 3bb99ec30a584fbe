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
 * A logger whose lines carry the request (headers redacted), made only when a line is written:
 * pino serialises a child's bindings when it is made (a fifth of a scan's CPU, at `warn`).
 */
export function requestLog(req: IncomingMessage): Logger | undefined {
  return req.logger?.child({ req: pino.stdSerializers.req(req) });
}

/**
 * Logs each API request once it is answered (at `info`). Only plain data goes on the request:
 * a getter defined on each one gave it a shape of its own, which V8 kept with all it touched.
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
