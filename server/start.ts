import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { createDb, createReadDb, migrateLatest, type Db } from '../db/knex';
import { databaseDamage } from '../db/integrity';
import { MSG } from '../core/messages';
import { protectDatabaseFiles } from './data-files';
import { removeStaleTempFiles } from './temp-files';
import { findUserByUsername, insertUserIfAbsent, setUserPassword } from '../db/repositories/users';
import { createApp } from './app';
import type { Config } from './config';
import { hashPassword, verifyPassword } from './secrets';
import { isLoopbackHost, plainHttpGate, startHttps, type HttpsSharing, type PlainHttpPolicy } from './lan';

export interface RunningServer {
  url: string;
  port: number;
  db: Db;
  server: http.Server;
  /** The request handler, so LAN sharing can serve it over HTTPS too. */
  app: http.RequestListener;
  /** Present while the LAN is served: HTTPS beside plain HTTP. */
  https?: HttpsSharing;
  /** What plain HTTP answers other devices; LAN sharing keeps its HTTPS port current. */
  plainHttp: PlainHttpPolicy;
  close(): Promise<void>;
}

/** The built door screen: out/renderer, whether the server runs from source or bundled in out/main. */
export function defaultRendererDir(): string {
  // From source (server/ -> out/renderer; never the unbuilt renderer/ beside it), from
  // out/main, or from a shared chunk in out/main/chunks.
  const candidates = [path.resolve(__dirname, '..', 'out', 'renderer'), path.resolve(__dirname, '..', 'renderer'), path.resolve(__dirname, '..', '..', 'renderer')];
  return candidates.find((dir) => fs.existsSync(path.join(dir, 'index.html'))) ?? candidates[0];
}

/**
 * DOORLIST_ADMIN_USERNAME/PASSWORD name an administrator who exists after start-up, with that
 * password. Processes starting together on one database may both insert: one wins, the other's
 * insert is ignored, and both then check the stored user.
 */
async function ensureAdmin(db: Db, config: Config): Promise<void> {
  if (!config.adminUsername || !config.adminPassword) return;
  let inserted: string | undefined;
  if (!(await findUserByUsername(db, config.adminUsername))) {
    inserted = await hashPassword(config.adminPassword);
    await insertUserIfAbsent(db, { username: config.adminUsername, password_hash: inserted, is_admin: true });
  }
  const existing = (await findUserByUsername(db, config.adminUsername))!;
  if (existing.password_hash === inserted) return;
  if (!(await verifyPassword(config.adminPassword, existing.password_hash)) || !existing.is_admin) {
    await setUserPassword(db, existing.id, await hashPassword(config.adminPassword), true);
  }
}

/**
 * Migrates, listens, and prints the ready line. Used by `npm run serve`, by the desktop
 * app's main process and by the tests.
 */
export async function startServer(config: Config, options: { logger?: Logger; rendererDir?: string; announce?: boolean } = {}): Promise<RunningServer> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  protectDatabaseFiles(config.db);
  const removed = removeStaleTempFiles();
  if (removed > 0) logger.info({ removed }, 'removed temporary files left by earlier runs');
  const db = createDb(config.db, { pool: config.dbPool, statementTimeoutMs: config.dbStatementTimeoutMs, warn: (message) => logger.warn(message) });
  const damage = await databaseDamage(db);
  if (damage) {
    await db.destroy();
    throw new Error(MSG.databaseDamaged(config.db, damage.replace(/\s+/g, ' ')));
  }
  await migrateLatest(db);
  await ensureAdmin(db, config);
  const readDb = createReadDb(config.db, { pool: config.dbPool, statementTimeoutMs: config.dbStatementTimeoutMs });
  const { listener: app, deps } = createApp({ db, readDb, config, logger, rendererDir: options.rendererDir ?? defaultRendererDir() });
  const plainHttp: PlainHttpPolicy = { allowLan: config.lanHttp };
  const server = http.createServer(plainHttpGate(app, plainHttp));
  server.keepAliveTimeout = 65_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (err) {
    // A taken port must not leave the database open behind a failed start (the app retries).
    await readDb.destroy();
    await db.destroy();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.host}:${port}`;
  // Browsers give the camera and Web NFC only to secure pages: the LAN also gets HTTPS.
  // A taken HTTPS port costs the LAN its camera, not the door its service: warn and go on.
  const secure = isLoopbackHost(config.host)
    ? undefined
    : await startHttps(app, { dbPath: config.db, host: config.host, port: config.httpsPort }).catch((err: Error) => {
        logger.warn({ err }, 'HTTPS for the LAN could not start');
        process.stderr.write(`Doorlist HTTPS could not start on port ${config.httpsPort}: ${err.message}\n`);
        return undefined;
      });
  plainHttp.httpsPort = secure?.port;
  if (options.announce !== false) process.stdout.write(`Doorlist listening on ${url}\n`);
  if (secure && options.announce !== false) process.stdout.write(`Doorlist HTTPS on ${secure.urls.join(' ')} (certificate SHA-256 ${secure.fingerprint})\n`);
  void deps.mailer.deliverPending();
  return {
    url,
    port,
    db,
    server,
    app,
    https: secure,
    plainHttp,
    close: async () => {
      await secure?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await readDb.destroy();
      await db.destroy();
    },
  };
}
