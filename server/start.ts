import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { createDb, createReadDb, migrateLatest, type Db } from '../db/knex';
import { findUserByUsername, insertUser, setUserPassword } from '../db/repositories/users';
import { createApp } from './app';
import type { Config } from './config';
import { hashPassword, verifyPassword } from './secrets';
import { isLoopbackHost, startHttps, type HttpsSharing } from './lan';

export interface RunningServer {
  url: string;
  port: number;
  db: Db;
  server: http.Server;
  /** The request handler, so LAN sharing can serve it over HTTPS too. */
  app: http.RequestListener;
  /** Present while the LAN is served: HTTPS beside plain HTTP. */
  https?: HttpsSharing;
  close(): Promise<void>;
}

/** The built door screen: out/renderer, whether the server runs from source or bundled in out/main. */
export function defaultRendererDir(): string {
  // From source (server/ -> out/renderer; never the unbuilt renderer/ beside it), from
  // out/main, or from a shared chunk in out/main/chunks.
  const candidates = [path.resolve(__dirname, '..', 'out', 'renderer'), path.resolve(__dirname, '..', 'renderer'), path.resolve(__dirname, '..', '..', 'renderer')];
  return candidates.find((dir) => fs.existsSync(path.join(dir, 'index.html'))) ?? candidates[0];
}

/** DOORLIST_ADMIN_USERNAME/PASSWORD name an administrator who exists after start-up, with that password. */
async function ensureAdmin(db: Db, config: Config): Promise<void> {
  if (!config.adminUsername || !config.adminPassword) return;
  const existing = await findUserByUsername(db, config.adminUsername);
  if (!existing) {
    await insertUser(db, { username: config.adminUsername, password_hash: await hashPassword(config.adminPassword), is_admin: true });
  } else if (!(await verifyPassword(config.adminPassword, existing.password_hash)) || !existing.is_admin) {
    await setUserPassword(db, existing.id, await hashPassword(config.adminPassword), true);
  }
}

/**
 * Migrates, listens, and prints the ready line. Used by `npm run serve`, by the desktop
 * app's main process and by the tests.
 */
export async function startServer(config: Config, options: { logger?: Logger; rendererDir?: string; announce?: boolean } = {}): Promise<RunningServer> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const db = createDb(config.db);
  await migrateLatest(db);
  await ensureAdmin(db, config);
  const readDb = createReadDb(config.db);
  const { app, deps } = createApp({ db, readDb, config, logger, rendererDir: options.rendererDir ?? defaultRendererDir() });
  const server = http.createServer(app);
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
    close: async () => {
      await secure?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await readDb.destroy();
      await db.destroy();
    },
  };
}
