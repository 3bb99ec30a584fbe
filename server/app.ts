import fs from 'node:fs';
import path from 'node:path';
import express from 'express';
import type { Logger } from 'pino';
import type { Db } from '../db/knex';
import type { Config } from './config';
import { Authenticator } from './http/auth';
import { Mailer } from './services/mailer';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { RouteDocuments } from './http/openapi';
import { apiDocsRouter } from './http/api-docs';
import type { RouteDeps } from './routes/deps';
import { routeTable } from './http/methods';
import { RequestsUnderWay } from './http/requests-under-way';
import { requestLogging } from './http/request-log';
import { withSecurityHeaders } from './http/security-headers';
import { apiKeysRouter } from './routes/api-keys';
import { authRouter } from './routes/auth';
import { checkinsRouter } from './routes/checkins';
import { eventFilesRouter } from './routes/event-files';
import { guestsCsvRouter } from './routes/guests-csv';
import { eventsRouter } from './routes/events';
import { groupsRouter } from './routes/groups';
import { guestsRouter } from './routes/guests';
import { customQuestionsRouter } from './routes/custom-questions';
import { registrationTypesRouter } from './routes/registration-types';
import { promotionCodesRouter } from './routes/promotion-codes';
import { sessionsRouter } from './routes/sessions';
import { tracksRouter } from './routes/tracks';
import { badgesRouter } from './routes/badges';
import { setupRouter } from './routes/setup';
import { usersRouter } from './routes/users';
import { syncRouter } from './routes/sync';
import { LocalWrites } from './services/local-writes';
import { AUTHORITY_PATH, type LanShare } from './lan';
import { lanRouter } from './routes/lan';
import { BadgePrinting } from './badges/print';
import { venueCors } from './http/venue-cors';

/** Every resource router, mounted in this order under /api/v1. */
// tracksRouter before sessionsRouter: /sessions/tracks must not be taken for a session id.
// The busiest first, as Express tries every route before the one that matches: checkinsRouter
// (the door's scan), then guestsRouter (walk-ins, the door's search, sync pages, API clients
// adding guests).
const ROUTERS = [checkinsRouter, guestsRouter, authRouter, setupRouter, groupsRouter, apiKeysRouter, usersRouter, eventsRouter, registrationTypesRouter, customQuestionsRouter, tracksRouter, sessionsRouter, promotionCodesRouter, badgesRouter, eventFilesRouter, guestsCsvRouter, syncRouter, lanRouter];

export const API_PREFIX = '/api/v1';

export interface AppOptions {
  db: Db;
  /** The read connection (see RouteDeps); the writer itself where there is no file to share (`:memory:`). */
  readDb?: Db;
  config: Config;
  logger: Logger;
  /** Sharing on the LAN: GET /ca.crt and GET /api/v1/lan read it. */
  lan: LanShare;
  /** Built door screen to serve at `/`; skipped when the folder does not exist. */
  rendererDir?: string;
  /** The badge worker's file (tests give one that fails on cue); the app's own by default. */
  badgeWorkerFile?: string;
}

// Secrets never reach a log: the token of every request line and of every error line logged with it.

export function createApp({ db, readDb = db, config, logger, lan, rendererDir, badgeWorkerFile }: AppOptions) {
  const auth = new Authenticator(db);
  const mailer = new Mailer(db, config.smtpUrl, logger);
  const deps: RouteDeps = { db, readDb, config, documents: new RouteDocuments(), auth, mailer, localWrites: new LocalWrites(config.doorActiveMs), underWay: new RequestsUnderWay(), logger, lan, badges: new BadgePrinting(logger, { workerFile: badgeWorkerFile }) };

  const app = express();
  app.disable('x-powered-by');
  // Production whatever NODE_ENV says: Express's own fallbacks never write a stack trace.
  app.set('env', 'production');
  // API answers are never kept by a client (Cache-Control: no-store), so an ETag, a SHA-1 of
  // every JSON body Express sends, would never be asked for. Files keep theirs (express.static).
  app.set('etag', false);
  // Behind the reverse proxy of a central server: the client's own address (the login limit's key).
  if (config.trustProxy !== undefined) app.set('trust proxy', config.trustProxy);
  app.use(requestLogging(logger, API_PREFIX));

  const api = express.Router();
  // Before the method guard: a preflight from a venue laptop's page is answered here.
  api.use(venueCors(readDb));
  // Before every router: a declared path asked with a method it lacks answers 405, never another route.
  api.use(routeTable(deps).guard());
  for (const makeRouter of ROUTERS) api.use(makeRouter(deps));
  routeTable(deps).add('get', '/openapi.json');

  // Generated on the first request for it, not in every start (about 80 ms of CPU).
  api.get('/openapi.json', (_req, res) => {
    res.json(deps.documents.document());
  });
  api.use(apiDocsRouter());
  api.use(notFoundHandler);
  app.use(API_PREFIX, api);

  // The authority of the laptop's LAN certificate, without a token: a phone installs it before it can trust the LAN.
  app.get(AUTHORITY_PATH, async (_req, res) => {
    const authority = await lan.identity.servedAuthority();
    res.set({ 'Content-Type': 'application/x-x509-ca-cert', 'Content-Disposition': 'attachment; filename="doorlist-ca.crt"', 'Cache-Control': 'no-cache' });
    res.send(Buffer.from(authority));
  });

  if (rendererDir && fs.existsSync(path.join(rendererDir, 'index.html'))) {
    app.use(express.static(rendererDir, { index: 'index.html', maxAge: '1h' }));
    // The door screen routes on the client; any other page path gets its shell.
    app.get(/^\/(?!api\/).*/, (_req, res) => res.sendFile(path.join(rendererDir, 'index.html')));
  }
  app.use(notFoundHandler);
  app.use(errorHandler);
  return { app, deps, listener: withSecurityHeaders(app) };
}
