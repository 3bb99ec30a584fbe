import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig, type Config } from '../../server/config';
import type { LanShare, ShareInfo } from '../../server/lan';
import { startServer, type RunningServer } from '../../server/start';

export const ADMIN = { username: 'door-admin', password: 'door-admin-secret' };
const RENDERER = path.resolve(__dirname, '..', '..', 'out', 'renderer');

export interface Answer<T = any> {
  status: number;
  body: T;
}

/**
 * The real server over a temporary database, in the test process. It can be stopped and
 * started again on the same port and database, as a door laptop restarting would be.
 */
export class DoorServer {
  adminToken = '';
  private running?: RunningServer;
  private lan?: LanShare;

  private constructor(
    readonly dir: string,
    private config: Config,
  ) {}

  /** `empty`: no DOORLIST_ADMIN_*, so no user exists until the first-run screen makes one. */
  static async start(options: { empty?: boolean } = {}): Promise<DoorServer> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-e2e-'));
    const admin = options.empty ? {} : { adminUsername: ADMIN.username, adminPassword: ADMIN.password };
    const config = loadConfig({}, [], { db: path.join(dir, 'doorlist.sqlite'), port: 0, httpsPort: 0, ...admin, logLevel: 'silent', checkReplies: true });
    const server = new DoorServer(dir, config);
    await server.restart();
    if (options.empty) return server;
    const login = await server.request('POST', '/apps/api/auth', ADMIN, null);
    server.adminToken = login.body.token;
    return server;
  }

  /** Whether it is serving now (a test may have stopped it). */
  get isRunning(): boolean {
    return this.running !== undefined;
  }

  get url(): string {
    if (!this.running) throw new Error('The server is stopped.');
    return `http://127.0.0.1:${this.running.port}`;
  }

  /** Starts again on the port it had (the first start picks a free one). */
  async restart(): Promise<void> {
    this.running = await startServer(this.config, { logger: pino({ level: 'silent' }), rendererDir: RENDERER, announce: false });
    this.config = Object.freeze({ ...this.config, port: this.running.port });
  }

  /** "Share on the LAN" as the desktop menu does it: every interface, and HTTPS on a free port. */
  async share(): Promise<ShareInfo & { httpsPort: number }> {
    if (!this.running) throw new Error('The server is stopped.');
    this.lan = this.running.lan;
    const info = await this.lan.start();
    return { ...info, httpsPort: Number(new URL(info.httpsUrls[0]).port) };
  }

  async stopSharing(): Promise<void> {
    await this.lan?.stop();
    this.lan = undefined;
  }

  async stop(): Promise<void> {
    await this.lan?.close();
    this.lan = undefined;
    await this.running?.close();
    this.running = undefined;
  }

  async dispose(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  async request<T = any>(method: string, pathName: string, body?: unknown, token: string | null = this.adminToken): Promise<Answer<T>> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Token ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.url}/api/v1${pathName}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
  }

  /** A request that must answer `status`; answers its body. */
  async must<T = any>(status: number, method: string, pathName: string, body?: unknown): Promise<T> {
    const answer = await this.request<T>(method, pathName, body);
    if (answer.status !== status) throw new Error(`${method} ${pathName} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  }
}
