import { execFileSync } from 'node:child_process';
import https from 'node:https';

// What the LAN tests share: the `ip` command, whether this machine can make a network namespace,
// tearing one down, and an API call over the LAN's HTTPS that trusts one authority only. Each test
// keeps its own topology (a veth pair, a bridge of several namespaces).

export function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe' });
}

/** Why this machine cannot make a test LAN (probed with a namespace called `probe`), or undefined when it can. */
export function lanImpossible(probe: string): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'making a network namespace needs root';
  try {
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
    return undefined;
  } catch (err) {
    return `ip netns is not possible here: ${(err as Error).message.split('\n')[0]}`;
  }
}

/** Runs each `ip` step of a teardown, whichever of them is already gone. */
export function ipQuietly(steps: string[][]): void {
  for (const args of steps) {
    try {
      ip(...args);
    } catch {
      // Already gone.
    }
  }
}

export interface Answer {
  status: number;
  body: any;
}

/** A JSON API call over HTTPS trusting nothing but `ca` (the authorities' PEM as GET /ca.crt served them). */
export function httpsJson(url: string, { method, token, ca, body }: { method: string; token?: string; ca: string | string[]; body?: unknown }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers.authorization = `Token ${token}`;
    if (payload) headers['content-type'] = 'application/json';
    const req = https.request(url, { method, headers, ca }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}
