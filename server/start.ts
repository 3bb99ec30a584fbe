import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { checkpointBeside, createDb, createReadDb, migrateLatest, migrationsPending, type Db } from '../db/knex';
import { headerDamage, isDamageError, pageDamage } from '../db/integrity';
import { MSG } from '../core/messages';
import { protectDatabaseFiles } from './data-files';
import { removeStaleTempFiles } from './temp-files';
import { findUserByUsername, insertUserIfAbsent, setUserPassword, type UserRow } from '../db/repositories/users';
import { createApp } from './app';
import type { RouteDeps } from './routes/deps';
import type { Config } from './config';
import { hashPassword, verifyPassword } from './secrets';
import { isLoopbackHost, LanIdentity, LanShare, plainHttpGate } from './lan';
import { createLogger } from './logger';
import { noteOnStderr, printLine } from './log-destination';
import { SyncFollower, syncTiming } from './sync';
import { VenueCertificate } from './sync/venue-certificate';
import { venueSelf } from './sync/venue';
import { abandonedAfterMs, clearAbandonedImports, setImportLiveness } from '../db/repositories/event-file-merge';

export interface RunningServer {
  url: string;
  port: number;
  db: Db;
  server: http.Server;
  /** The request handler, so LAN sharing can serve it over HTTPS too. */
  app: http.RequestListener;
  /** Sharing on the LAN: its state, its certificates, and the desktop app's switch. */
  lan: LanShare;
  /** Settles once SQLite has checked every page of the database; rejects when it is damaged. */
  checked: Promise<void>;
  /** What the sync follower has done so far (its ticks and cycles), for tests that wait on it. */
  follower: Pick<SyncFollower, 'ticks' | 'cyclesEnded'>;
  /** The venue's authority for this laptop's LAN certificate; a test runs a check itself. */
  venueCertificate: Pick<VenueCertificate, 'check'>;
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
 * insert is ignored, and both then check the stored user. An administrator already there is
 * not compared now: that is a scrypt (~75 ms of CPU) on every start, needed only when someone
 * signs in. Answers that comparison, for the first sign-in to run (Authenticator).
 */
async function ensureAdmin(db: Db, config: Config, sound: () => Promise<void>): Promise<(() => Promise<void>) | undefined> {
  const { adminUsername: username, adminPassword: password } = config;
  if (!username || !password) return undefined;
  const found = await findUserByUsername(db, username);
  if (found?.is_admin) return () => keepAdminPassword(db, found, password);
  await sound();
  let inserted: string | undefined;
  if (!found) {
    inserted = await hashPassword(password);
    await insertUserIfAbsent(db, { username, password_hash: inserted, is_admin: true });
  }
  const existing = (await findUserByUsername(db, username))!;
  if (existing.password_hash !== inserted && (!existing.is_admin || !(await verifyPassword(password, existing.password_hash)))) {
    await setUserPassword(db, existing.id, await hashPassword(password), true);
  }
  return undefined;
}

/**
 * Sets the administrator's password to the environment's unless it already is. A password
 * changed since start-up (through the API or the command line) is theirs to keep.
 */
async function keepAdminPassword(db: Db, seen: UserRow, password: string): Promise<void> {
  const current = await findUserByUsername(db, seen.username);
  if (!current || current.password_hash !== seen.password_hash || (await verifyPassword(password, seen.password_hash))) return;
  await setUserPassword(db, current.id, await hashPassword(password), true);
}

/**
 * Lets requests through once the database's pages are known to be sound; until then they
 * wait, and on a damaged database each is answered 503 with what is wrong.
 */
function afterCheck(listener: http.RequestListener, checked: Promise<void>): http.RequestListener {
  let problem: string | undefined;
  let settled = false;
  void checked.then(
    () => (settled = true),
    (err: Error) => {
      problem = err.message;
      settled = true;
    },
  );
  const answer: http.RequestListener = (req, res) => {
    if (problem === undefined) return listener(req, res);
    const body = JSON.stringify({ detail: problem });
    res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) });
    res.end(body);
  };
  return (req, res) => {
    if (settled) return answer(req, res);
    void checked.catch(() => undefined).then(() => answer(req, res));
  };
}

export interface StartOptions {
  logger?: Logger;
  rendererDir?: string;
  announce?: boolean;
  /** The sync follower's timer (DOORLIST_SYNC_TICK_MS unless given); tests slow it so only a nudge explains a quick push. */
  syncIntervalMs?: number;
  /** The badge worker's file (AppOptions.badgeWorkerFile). */
  badgeWorkerFile?: string;
}

/**
 * The writer and the readers over the database file, once its header reads as a database, and
 * SQLite's check of every page running beside the start (`checked`).
 */
async function openDatabases(config: Config, logger: Logger) {
  const db = createDb(config.db, { pool: config.dbPool, statementTimeoutMs: config.dbStatementTimeoutMs, warn: (message) => logger.warn(message), checkpointsBeside: true });
  setImportLiveness(db, config.importAbandonedMs);
  const stopCheckpoints = checkpointBeside(config.db);
  const readDb = createReadDb(config.db, { pool: config.dbPool, statementTimeoutMs: config.dbStatementTimeoutMs });
  const damaged = (problem: string) => new Error(MSG.databaseDamaged(config.db, problem.replace(/\s+/g, ' ')));
  const closeDatabase = async () => {
    await readDb.destroy();
    await stopCheckpoints();
    await db.destroy();
  };
  const notDatabase = headerDamage(db);
  if (notDatabase) {
    await closeDatabase();
    throw damaged(notDatabase);
  }
  const checked = pageDamage(readDb).then((problem) => {
    if (problem) throw damaged(problem);
  });
  checked.catch(() => undefined);
  return { db, readDb, checked, closeDatabase };
}

/**
 * HTTPS for the LAN: browsers give the camera and Web NFC only to secure pages. A taken HTTPS
 * port costs the LAN its camera, not the door its service: warn and go on.
 */
async function startLanHttps(lan: LanShare, config: Config, logger: Logger) {
  if (isLoopbackHost(config.host)) return undefined;
  return lan.serveHttps(config.host).catch((err: Error) => {
    logger.warn({ err }, 'HTTPS for the LAN could not start');
    noteOnStderr(`Doorlist HTTPS could not start on port ${config.httpsPort}: ${err.message}\n`);
    return undefined;
  });
}

/** The ready lines on stdout (the desktop app and scripts wait for the first). */
function announce(url: string, secure: { urls: string[]; fingerprint: string } | undefined, lan: LanShare): void {
  printLine(`Doorlist listening on ${url}`);
  if (secure) printLine(`Doorlist HTTPS on ${secure.urls.join(' ')} (authority SHA-256 ${secure.fingerprint}, trusted once from ${lan.info().authorityUrls[0] ?? '/ca.crt'})`);
}

/** How long a stop waits for handlers still running (a sync push merging, say) before the database closes. */
const HANDLERS_GRACE_MS = 10_000;

/**
 * Migrates, listens, and prints the ready line. Used by `npm run serve`, by the desktop
 * app's main process and by the tests.
 *
 * SQLite's check of every page (db/integrity.ts, about a second per GB) runs on a read
 * connection beside the start instead of before it: nothing is written until it has answered
 * (a pending migration or a missing administrator waits for it), requests wait for it
 * (afterCheck), and a damaged database rejects `checked` (serve.ts then exits).
 */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  protectDatabaseFiles(config.db);
  const removed = removeStaleTempFiles();
  if (removed > 0) logger.info({ removed }, 'removed temporary files left by earlier runs');
  const { db, readDb, checked, closeDatabase } = await openDatabases(config, logger);

  let app: http.RequestListener;
  let deps: RouteDeps;
  let server: http.Server;
  const lan = new LanShare(new LanIdentity(config.db), { allowLan: config.lanHttp }, config.httpsPort);
  try {
    if (await migrationsPending(db)) {
      await checked;
      await migrateLatest(db);
    }
    const adminPassword = await ensureAdmin(db, config, () => checked);
    ({ listener: app, deps } = createApp({ db, readDb, config, logger, lan, rendererDir: options.rendererDir ?? defaultRendererDir(), badgeWorkerFile: options.badgeWorkerFile }));
    if (adminPassword) deps.auth.beforePasswords(adminPassword);
    app = afterCheck(app, checked);
    server = http.createServer(plainHttpGate(app, lan.plainHttp));
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (err) {
    // A taken port must not leave the database open behind a failed start (the app retries);
    // a read that met a damaged page is told as the check tells it.
    const problem = isDamageError(err) ? await checked.then(() => undefined, (e: Error) => e) : undefined;
    await checked.catch(() => undefined);
    await closeDatabase();
    throw problem ?? err;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.host}:${port}`;
  lan.attach({ server, app });
  const secure = await startLanHttps(lan, config, logger);
  if (options.announce !== false) announce(url, secure, lan);
  // Beside the door: followed events push and pull on their own timer, never in a request.
  const follower = new SyncFollower(db, readDb, logger, options.syncIntervalMs ?? config.syncTickMs, syncTiming(config), {
    errorRetryMs: config.syncErrorRetryMs,
    venue: { self: venueSelf(config.stationName, lan), probeMs: config.venueProbeSeconds * 1000 },
  });
  deps.localWrites.onWrite((eventId) => follower.nudge(eventId));
  deps.localWrites.onUnfollow((eventId) => follower.forget(eventId));
  const venueCertificate = new VenueCertificate(db, lan, logger, config.venueProbeSeconds * 1000, syncTiming(config));
  let closing = false;
  // What a process that died mid-import or mid-merge left (a hidden event, half a merge) is
  // cleared once its stamps are surely stale, whether or not anyone imports again.
  const clearing = setTimeout(() => {
    if (!closing) clearAbandonedImports(db).catch((err: Error) => logger.warn({ err }, 'what an interrupted import left could not be cleared yet'));
  }, abandonedAfterMs(db));
  clearing.unref();
  void checked.then(() => {
    if (closing) return;
    void deps.mailer.deliverPending();
    follower.start();
    venueCertificate.start();
  }, () => undefined);
  return {
    url,
    port,
    db,
    server,
    app,
    lan,
    checked,
    follower,
    venueCertificate,
    close: async () => {
      closing = true;
      clearTimeout(clearing);
      await follower.stop();
      await venueCertificate.stop();
      await lan.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deps.underWay.settled(HANDLERS_GRACE_MS);
      await deps.badges.close();
      await checked.catch(() => undefined);
      await closeDatabase();
    },
  };
}
