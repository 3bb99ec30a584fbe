import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { httpsJson, ip, ipQuietly, type Answer } from './netns';
import { SERVE_ENTRY } from './built-app';

// A venue's laptops on a LAN of the test's own: network namespaces on a bridge that this
// namespace is on too (so a test, or a browser it drives, reaches each laptop at its address;
// tests never use the machine's other addresses), each laptop `npm run serve` in its namespace.
// Shared by test/api/venue-three-laptops.test.ts and test/e2e/venue-door-move.spec.ts.

const ROOT = path.resolve(__dirname, '..', '..');
export const LAN_ADMIN = { username: 'venue-admin', password: 'venue-admin-secret' };
// Each namespace has its own ports: every laptop serves on the same ones, kept across restarts.
const HTTP_PORT = 8787;
const HTTPS_PORT = 8788;

export interface LanMember {
  namespace: string;
  /** The bridge's end of the veth pair (its peer, `${veth}p`, goes into the namespace). */
  veth: string;
  address: string;
}

/** A bridge at `${subnet}.1/24` and each member's namespace on it, at its address. */
export function makeBridgeLan(bridge: string, subnet: string, members: LanMember[]): void {
  ip('link', 'add', bridge, 'type', 'bridge');
  ip('addr', 'add', `${subnet}.1/24`, 'dev', bridge);
  ip('link', 'set', bridge, 'up');
  for (const m of members) {
    ip('netns', 'add', m.namespace);
    ip('link', 'add', m.veth, 'type', 'veth', 'peer', 'name', `${m.veth}p`);
    ip('link', 'set', `${m.veth}p`, 'netns', m.namespace);
    ip('link', 'set', m.veth, 'master', bridge);
    ip('link', 'set', m.veth, 'up');
    ip('-n', m.namespace, 'addr', 'add', `${m.address}/24`, 'dev', `${m.veth}p`);
    ip('-n', m.namespace, 'link', 'set', `${m.veth}p`, 'up');
    ip('-n', m.namespace, 'link', 'set', 'lo', 'up');
  }
}

export function removeBridgeLan(bridge: string, members: LanMember[]): void {
  ipQuietly([...members.map((m) => ['netns', 'del', m.namespace]), ...members.map((m) => ['link', 'del', m.veth]), ['link', 'del', bridge]]);
}

export interface LanLaptopOptions {
  /** The authorities the test trusts (each laptop's own, added as it starts): a follower's certificate is soon its upstream's authority's. */
  trusted: string[];
  /** Settings, so a test waits for conditions rather than for the defaults' seconds. */
  env?: Record<string, string>;
}

/** One laptop: `npm run serve` sharing the LAN inside its namespace, its log kept in its folder. */
export class LanLaptop<N extends string = string> {
  child?: ChildProcess;
  /** Its own authority's SHA-256 (AA:BB:...), as its ready line prints it. */
  fingerprint = '';
  ca = '';
  token = '';

  constructor(
    readonly name: N,
    readonly member: LanMember,
    readonly dir: string,
    readonly db: string,
    private readonly options: LanLaptopOptions,
  ) {}

  get origin(): string {
    return `https://${this.member.address}:${HTTPS_PORT}`;
  }

  get apiBase(): string {
    return `${this.origin}/api/v1`;
  }

  private get logFile(): string {
    return path.join(this.dir, `${this.name}.log`);
  }

  async start(): Promise<void> {
    const log = fs.openSync(this.logFile, 'a');
    const child = spawn('ip', ['netns', 'exec', this.member.namespace, process.execPath, SERVE_ENTRY], {
      cwd: ROOT,
      env: {
        ...process.env,
        DOORLIST_DB: this.db,
        // A laptop on PostgreSQL keeps its LAN files in the per-user data folder: this one's own.
        XDG_DATA_HOME: this.dir,
        DOORLIST_HOST: '0.0.0.0',
        DOORLIST_PORT: String(HTTP_PORT),
        DOORLIST_HTTPS_PORT: String(HTTPS_PORT),
        DOORLIST_LOG_LEVEL: 'info',
        DOORLIST_ADMIN_USERNAME: LAN_ADMIN.username,
        DOORLIST_ADMIN_PASSWORD: LAN_ADMIN.password,
        DOORLIST_CHECK_REPLIES: '1',
        DOORLIST_STATION_NAME: `Laptop ${this.name}`,
        DOORLIST_VENUE_PROBE_S: '1',
        DOORLIST_SYNC_TICK_MS: '300',
        DOORLIST_SYNC_ERROR_RETRY_MS: '200',
        ...this.options.env,
      },
      stdio: ['ignore', 'pipe', log],
    });
    this.child = child;
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk) => {
        fs.appendFileSync(this.logFile, chunk);
        out += chunk;
        const found = out.split('\n').find((l) => l.startsWith('Doorlist HTTPS on '));
        if (found) resolve(found);
      });
      child.once('exit', (code) => reject(new Error(`laptop ${this.name} exited ${code}; see ${this.logFile}`)));
    });
    const match = /\(authority SHA-256 (\S+), trusted once from (http:\/\/\S+\/ca\.crt)\)$/.exec(line);
    assert.ok(match, line);
    this.fingerprint = match[1];
    this.ca = await (await fetch(match[2])).text();
    if (!this.options.trusted.includes(this.ca)) this.options.trusted.push(this.ca);
    this.token = (await this.must(200, 'POST', '/apps/api/auth', LAN_ADMIN)).token;
  }

  /** Whether its process runs (a test may have killed it, or a retried worker started it anew). */
  get alive(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Killed as a laptop dies: nothing flushed, nothing said. */
  kill(): Promise<void> {
    return this.end('SIGKILL');
  }

  stop(): Promise<void> {
    return this.end('SIGTERM');
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill(signal);
    });
  }

  request(method: string, pathName: string, body?: unknown): Promise<Answer> {
    return httpsJson(`${this.apiBase}${pathName}`, { method, token: this.token, ca: this.options.trusted, body });
  }

  async must(status: number, method: string, pathName: string, body?: unknown): Promise<any> {
    const answer = await this.request(method, pathName, body);
    assert.equal(answer.status, status, `${this.name}: ${method} ${pathName}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  /** The SHA-256 of the authority of the certificate it serves now (AA:BB:...). */
  async servedFingerprint(): Promise<string> {
    return (await this.must(200, 'GET', '/lan')).fingerprint;
  }

  /** The uids of the event's check-ins here, each as often as it is stored. */
  async checkinUids(eventId: number): Promise<string[]> {
    const page = await this.must(200, 'GET', `/events/${eventId}/checkins?page_size=100`);
    return (page.results as { uid: string }[]).map((c) => c.uid).sort();
  }

  async guestId(eventId: number, barcode: string): Promise<number> {
    const page = await this.must(200, 'GET', `/events/${eventId}/guests?search=${barcode}`);
    return page.results[0].id;
  }

  /** A scan answered here (201), with a uid of the test's own. */
  async scan(eventId: number, barcode: string, uid: string): Promise<string> {
    await this.must(201, 'POST', `/events/${eventId}/checkins`, { guest_id: await this.guestId(eventId, barcode), station: `${this.name} door`, uid });
    return uid;
  }
}
