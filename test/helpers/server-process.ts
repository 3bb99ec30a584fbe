import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN } from './server';
import { SERVE_ENTRY } from './built-app';

const ROOT = path.resolve(__dirname, '..', '..');

export interface ServerProcess {
  child: ChildProcess;
  /** `http://host:port/api/v1` from the ready line. */
  baseUrl: string;
  /** Everything the process printed so far. */
  output(): { stdout: string; stderr: string };
  stop(): Promise<void>;
}

/** What `npm run serve` prints and how it exits, for a start that is expected to fail. */
export function runServe(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [SERVE_ENTRY], { cwd: ROOT, env: { ...process.env, DOORLIST_LOG_LEVEL: 'silent', DOORLIST_CHECK_REPLIES: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** `npm run serve`'s entry point as its own process, with the test administrator. */
export function startServeProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [SERVE_ENTRY], {
    cwd: ROOT,
    env: {
      ...process.env,
      DOORLIST_PORT: '0',
      DOORLIST_HOST: '127.0.0.1',
      DOORLIST_ADMIN_USERNAME: ADMIN.username,
      DOORLIST_ADMIN_PASSWORD: ADMIN.password,
      DOORLIST_LOG_LEVEL: 'silent',
      DOORLIST_CHECK_REPLIES: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
  };
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const match = /Doorlist listening on (http:\/\/\S+)/.exec(stdout);
      if (match) resolve({ child, baseUrl: `${match[1]}/api/v1`, output: () => ({ stdout, stderr }), stop });
    });
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before it was ready: ${stderr}`)));
  });
}

export async function signIn(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/apps/api/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
  return ((await res.json()) as { token: string }).token;
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
