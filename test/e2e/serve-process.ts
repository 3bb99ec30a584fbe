import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Answer } from './door-server';

const ROOT = path.resolve(__dirname, '..', '..');
export const SERVE_ADMIN = { username: 'boss', password: 'door-secret' };

/**
 * `npm run serve` as built, in its own process: a test can freeze it (SIGSTOP), as a laptop
 * that went to sleep or a server that hangs, which the in-process server cannot do.
 */
export class ServeProcess {
  adminToken = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly url: string,
  ) {}

  static async start(): Promise<ServeProcess> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-serve-process-'));
    const child = spawn(process.execPath, [path.join(ROOT, 'out', 'main', 'serve.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        DOORLIST_DB: path.join(dir, 'doorlist.sqlite'),
        DOORLIST_PORT: '0',
        DOORLIST_LOG_LEVEL: 'silent',
        DOORLIST_CHECK_REPLIES: '1',
        DOORLIST_ADMIN_USERNAME: SERVE_ADMIN.username,
        DOORLIST_ADMIN_PASSWORD: SERVE_ADMIN.password,
      },
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk) => {
        out += chunk;
        const match = /Doorlist listening on (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1]);
      });
      child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
    });
    const server = new ServeProcess(child, dir, url);
    server.adminToken = (await server.must<{ token: string }>(200, 'POST', '/apps/api/auth', SERVE_ADMIN)).token;
    return server;
  }

  /** Frozen: connections are accepted by the kernel and never answered. */
  freeze(): void {
    this.child.kill('SIGSTOP');
  }

  thaw(): void {
    this.child.kill('SIGCONT');
  }

  async dispose(): Promise<void> {
    this.thaw();
    this.child.kill('SIGTERM');
    await new Promise((resolve) => (this.child.exitCode === null ? this.child.once('exit', resolve) : resolve(undefined)));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  async request<T = any>(method: string, pathName: string, body?: unknown): Promise<Answer<T>> {
    const headers: Record<string, string> = {};
    if (this.adminToken) headers.authorization = `Token ${this.adminToken}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.url}/api/v1${pathName}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
  }

  async must<T = any>(status: number, method: string, pathName: string, body?: unknown): Promise<T> {
    const answer = await this.request<T>(method, pathName, body);
    if (answer.status !== status) throw new Error(`${method} ${pathName} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  }
}
