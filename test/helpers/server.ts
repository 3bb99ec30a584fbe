import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { newUid } from '../../core/uid';
import { findUserByUsername, insertToken } from '../../db/repositories/users';
import { loadConfig, type Config } from '../../server/config';
import { hashSecret, newSecret } from '../../server/secrets';
import { startServer, type RunningServer, type StartOptions } from '../../server/start';
import { createServerDatabase, type TestDatabase } from './database';

export const ADMIN = { username: 'admin', password: 'door-admin-secret' };

/**
 * A follower's tick and its first wait after an error (DOORLIST_SYNC_TICK_MS,
 * DOORLIST_SYNC_ERROR_RETRY_MS), small: a sync test waits for the state it expects (eventually,
 * or the follower's cycle counter), which comes within a few of these rather than of seconds.
 */
export const QUICK_SYNC = { syncTickMs: 100, syncErrorRetryMs: 50 } as const satisfies Partial<Config>;
// What a sign-in gives a token (server/routes/auth.ts).
const TOKEN_LIFETIME_MS = 30 * 24 * 3600 * 1000;

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  body?: unknown;
  /** Token or API key; `null` sends no Authorization header. Defaults to the admin token. */
  token?: string | null;
  headers?: Record<string, string>;
  /** Sent as is, without JSON encoding. */
  rawBody?: string | Buffer;
}

/**
 * A real server on a free port over a fresh database (a temporary SQLite file, or a new
 * PostgreSQL database with DOORLIST_TEST_PG): tests talk HTTP to it, exactly as a client would.
 */
export class TestServer {
  adminToken = '';

  private constructor(
    public running: RunningServer,
    readonly dir: string,
    readonly config: Config,
    private readonly database: TestDatabase,
    private readonly options: StartOptions,
  ) {}

  static async start(overrides: Partial<Config> = {}, options: Pick<StartOptions, 'syncIntervalMs' | 'badgeWorkerFile' | 'logger'> = {}): Promise<TestServer> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-test-'));
    const settings = { adminUsername: ADMIN.username, adminPassword: ADMIN.password, ...overrides };
    const admin = settings.adminUsername === ADMIN.username && settings.adminPassword === ADMIN.password ? ADMIN : undefined;
    const database = await createServerDatabase(dir, admin);
    // An administrator already in the file needs no DOORLIST_ADMIN_*, whose check of the stored
    // password would cost the first sign-in a scrypt (server/start.ts ensureAdmin).
    const adminSettings = database.holdsAdmin && overrides.db === undefined ? { adminUsername: undefined, adminPassword: undefined } : {};
    const config = loadConfig({}, [], { db: database.setting, port: 0, logLevel: 'silent', checkReplies: true, ...settings, ...adminSettings });
    const startOptions: StartOptions = { ...options, logger: options.logger ?? pino({ level: 'silent' }), announce: false };
    const running = await startServer(config, startOptions);
    const server = new TestServer(running, dir, config, database, startOptions);
    // The administrator's token written as a sign-in writes it, without the sign-in's scrypt;
    // the user's uid made its own, as a start on an empty database would.
    const user = admin && (await findUserByUsername(running.db, admin.username));
    if (user) {
      await running.db('users').where({ id: user.id }).update({ uid: newUid() });
      const token = newSecret();
      await insertToken(running.db, user.id, hashSecret(token), new Date(Date.now() + TOKEN_LIFETIME_MS).toISOString());
      server.adminToken = token;
    }
    return server;
  }

  get db() {
    return this.running.db;
  }

  get baseUrl(): string {
    return `${this.running.url}/api/v1`;
  }

  async request<T = any>(method: string, pathName: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const token = options.token === undefined ? this.adminToken : options.token;
    const headers: Record<string, string> = { ...options.headers };
    if (token !== null) headers.authorization = `Token ${token}`;
    let body: string | Buffer | undefined = options.rawBody;
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + pathName, { method, headers, body: typeof body === 'string' || body === undefined ? body : new Uint8Array(body) });
    const text = await res.text();
    let parsed: unknown = text;
    if (text && (res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  get = <T = any>(p: string, o?: RequestOptions) => this.request<T>('GET', p, o);
  post = <T = any>(p: string, body?: unknown, o?: RequestOptions) => this.request<T>('POST', p, { ...o, body });
  put = <T = any>(p: string, body?: unknown, o?: RequestOptions) => this.request<T>('PUT', p, { ...o, body });
  delete = <T = any>(p: string, o?: RequestOptions) => this.request<T>('DELETE', p, o);

  /** Closes the server and starts it again on the same database (a new port), as a laptop restarting would. */
  async restart(): Promise<void> {
    await this.running.close();
    this.running = await startServer(this.config, this.options);
  }

  async stop(): Promise<void> {
    await this.running.close();
    await this.database.drop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
