import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ADMIN } from './server';

const ROOT = path.resolve(__dirname, '..', '..');

/** `npm run serve` as a process of its own, on a free port: what a central server runs several of. */
export interface ServeProcess {
  process: ChildProcess;
  baseUrl: string;
  stop(): Promise<void>;
}

export function startServeProcess(db: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/serve.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DOORLIST_DB: db,
      DOORLIST_PORT: '0',
      DOORLIST_HOST: '127.0.0.1',
      DOORLIST_ADMIN_USERNAME: ADMIN.username,
      DOORLIST_ADMIN_PASSWORD: ADMIN.password,
      DOORLIST_LOG_LEVEL: 'silent',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const match = /Doorlist listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ process: child, baseUrl: `${match[1]}/api/v1`, stop });
    });
    child.stderr!.on('data', (chunk) => (err += chunk));
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before it was ready: ${err}`)));
  });
}

/** One HTTP call to a process: status and parsed JSON body. */
export async function call(baseUrl: string, method: string, pathName: string, options: { token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Token ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(baseUrl + pathName, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
