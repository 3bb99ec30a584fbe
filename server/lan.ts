import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import net, { type AddressInfo } from 'node:net';
import type { IncomingMessage, RequestListener } from 'node:http';
import { restrictMode } from './data-files';
import { withHsts } from './http/security-headers';
import { MSG } from '../core/messages';
import { isPostgresUrl } from '../db/dialect/postgres';
import { defaultDataDir } from './config';
import { ensureAuthority, ensureCertificate, installIssuedCertificate, lanOnly, type Authority, type LanCertificate } from './lan-certificates';

/** Sharing binds every interface; anything else on a loopback address stays plain HTTP. */
export const LAN_HOST = '0.0.0.0';
export const LOOPBACK_HOST = '127.0.0.1';

export interface HttpsSharing {
  port: number;
  /** Addresses other devices can open, one per LAN interface (read again each time). */
  readonly urls: string[];
  /**
   * SHA-256 (`AB:CD:...`) of the authority that issued the certificate served now: what a phone
   * trusts once and a follower pins (this laptop's own, or its upstream's once that one signed).
   */
  readonly fingerprint: string;
  /** The certificate served now (it changes with the addresses). */
  readonly certificateFingerprint: string;
  close(): Promise<void>;
}

/**
 * `localhost` or a loopback address written out (`127.0.0.1`, `::1`): never a DNS name that
 * merely starts with `127.` (`127.0.0.1.evil.example` resolves wherever its owner likes).
 */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || isLoopbackAddress(host);
}

/** A connection from this machine itself (IPv4, IPv6, or IPv4 mapped into IPv6): an address, never a name. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address || net.isIP(address) === 0) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/**
 * What plain HTTP may do for a connection from another device. `httpsPort` follows sharing
 * (set while HTTPS runs); `allowLan` is DOORLIST_LAN_HTTP=1, for old clients that cannot
 * speak HTTPS.
 */
export interface PlainHttpPolicy {
  httpsPort?: number;
  allowLan: boolean;
}

const HOST_NAME = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])$/;

/** The HTTPS address of the same resource, on the host name the client used. */
function httpsLocation(req: IncomingMessage, port: number): string {
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  const name = HOST_NAME.test(host) ? host : (lanAddresses()[0] ?? LOOPBACK_HOST);
  return `https://${name}:${port}${req.url ?? '/'}`;
}

/** GET /ca.crt: public, checked by its fingerprint, and wanted before HTTPS can be trusted. */
export const AUTHORITY_PATH = '/ca.crt';

function isAuthorityRequest(req: IncomingMessage): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && req.url === AUTHORITY_PATH;
}

/**
 * Plain HTTP serves this machine only: tokens and guest data must not cross the venue's
 * Wi-Fi in clear. From another device (the authority's certificate aside) a page request is
 * redirected to HTTPS, an API call (or anything but GET/HEAD) is refused with the address to
 * use instead.
 */
export function plainHttpGate(listener: RequestListener, policy: PlainHttpPolicy): RequestListener {
  return (req, res) => {
    if (policy.allowLan || isLoopbackAddress(req.socket.remoteAddress) || isAuthorityRequest(req)) return listener(req, res);
    const port = policy.httpsPort;
    const isPage = !req.url?.startsWith('/api/') && (req.method === 'GET' || req.method === 'HEAD');
    if (port && isPage) {
      res.writeHead(308, { Location: httpsLocation(req, port), 'Content-Length': '0' });
      res.end();
      return;
    }
    const body = JSON.stringify({ detail: port ? MSG.plainHttpRefused(httpsLocation(req, port)) : MSG.plainHttpNoHttps });
    res.writeHead(403, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) });
    res.end(body);
  };
}

/** The IPv4 addresses of this machine on the venue network. */
export function lanAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfo => !!a && a.family === 'IPv4' && !a.internal)
    .map((a) => a.address);
}

/** What another device types to reach `host:port`: the LAN addresses when bound to every interface. */
export function reachableUrls(scheme: 'http' | 'https', host: string, port: number): string[] {
  const hosts = host === LAN_HOST || host === '::' ? lanAddresses() : [host];
  return (hosts.length ? hosts : [host]).map((h) => `${scheme}://${h}:${port}`);
}

/** Beside a SQLite file; for a PostgreSQL URL, in the per-user data folder. */
export function lanFilesDir(dbPath: string): string {
  return isPostgresUrl(dbPath) ? defaultDataDir() : path.dirname(path.resolve(dbPath));
}

/** Every name this laptop answers to: its LAN addresses now, loopback and its host name. */
export function lanNames(): { ips: string[]; dns: string[] } {
  const hostname = os.hostname();
  return { ips: [LOOPBACK_HOST, ...lanAddresses()], dns: ['localhost', hostname, ...(hostname.includes('.') ? [] : [`${hostname}.local`])] };
}

/**
 * This laptop's authority and its LAN certificate, kept beside the database, each made on
 * first use. The certificate follows the addresses: one that came since it was issued gets a
 * new certificate from the same authority, so a phone that trusts the authority never notices.
 */
export class LanIdentity {
  readonly dir: string;
  private made?: Promise<Authority>;
  private current?: Promise<LanCertificate>;

  constructor(dbPath: string) {
    this.dir = lanFilesDir(dbPath);
  }

  authority(): Promise<Authority> {
    this.made ??= ensureAuthority(this.dir).catch((err: unknown) => {
      this.made = undefined;
      throw err;
    });
    return this.made;
  }

  /** The certificate for every address the laptop has now; the same object while none came. */
  async certificate(): Promise<LanCertificate> {
    const names = lanNames();
    const known = await this.current?.catch(() => undefined);
    // A certificate an upstream signed covers the LAN names only (lan-certificates.ts).
    const wanted = known && known.authority !== (await this.authority()).cert ? lanOnly(names) : names;
    if (known && wanted.ips.every((ip) => known.ips.includes(ip)) && wanted.dns.every((name) => known.dns.includes(name))) return known;
    const next = this.authority().then((authority) => ensureCertificate(this.dir, authority, names));
    this.current = next;
    return next;
  }

  /** Serves `issued` (a certificate signed by an upstream's authority for `names`) from now on. */
  install(issued: { cert: string; key: string; issuer: string }, names: { ips: string[]; dns: string[] }): Promise<LanCertificate> {
    const served = this.current;
    const next = installIssuedCertificate(this.dir, issued, names);
    // A refused certificate leaves the one served before in place.
    this.current = next.catch((err: unknown) => served ?? Promise.reject(err));
    return next;
  }

  /** PEM of the authority a phone must trust for this laptop: the issuer of the certificate served, else its own. */
  async servedAuthority(): Promise<string> {
    const served = await this.current?.catch(() => undefined);
    return served?.authority ?? (await this.authority()).cert;
  }
}

/** How often sharing looks for a new address (Wi-Fi joined, DHCP lease changed). */
const ADDRESS_CHECK_MS = 5000;

/** Serves `app` over HTTPS on `host:port` (0 picks a free port) with the laptop's LAN certificate. */
export async function startHttps(app: RequestListener, options: { identity: LanIdentity; host: string; port: number }): Promise<HttpsSharing> {
  const { identity, host } = options;
  let certificate = await identity.certificate();
  const server = https.createServer({ cert: certificate.chain, key: certificate.key }, withHsts(app));
  server.keepAliveTimeout = 65_000;
  await listen(server, options.port, host);
  const port = (server.address() as AddressInfo).port;
  // New connections get the new certificate; open ones keep theirs. A failure keeps the one it has.
  const watch = setInterval(() => {
    identity.certificate().then((next) => {
      if (next === certificate) return;
      certificate = next;
      server.setSecureContext({ cert: next.chain, key: next.key });
    }, () => undefined);
  }, ADDRESS_CHECK_MS);
  watch.unref();
  return {
    port,
    get urls() {
      return reachableUrls('https', host, port);
    },
    get fingerprint() {
      return certificate.authorityFingerprint;
    },
    get certificateFingerprint() {
      return certificate.fingerprint;
    },
    close: () => {
      clearInterval(watch);
      return closeServer(server);
    },
  };
}

function listen(server: http.Server | https.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function closeServer(server: http.Server | https.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Moves a listening HTTP server to another address on the same port (loopback <-> every
 * interface), keeping the app and database; open door screens reconnect by themselves.
 */
export async function rebind(server: http.Server, host: string): Promise<void> {
  const port = (server.address() as AddressInfo).port;
  await closeServer(server);
  await listen(server, port, host);
}

export interface ShareInfo {
  sharing: boolean;
  /** Plain HTTP: loopback while not sharing; to other devices only with DOORLIST_LAN_HTTP=1. */
  httpUrls: string[];
  httpsUrls: string[];
  /** Where a phone downloads the authority: plain HTTP, so no warning stands in the way. */
  authorityUrls: string[];
  /** The authority's SHA-256 (`AB:CD:...`), stable across addresses: what staff compare. */
  fingerprint?: string;
  /** The certificate served now, as a browser's certificate warning shows it. */
  certificateFingerprint?: string;
}

export interface SharedServer {
  server: http.Server;
  app: RequestListener;
}

/**
 * Whether and where this laptop serves the LAN: HTTPS beside the plain HTTP server, made by
 * `npm run serve` on a LAN host or by the desktop app's "Share on the LAN" switch, which
 * rebinds the running server to every interface and back to loopback only.
 */
export class LanShare {
  private secure?: HttpsSharing;
  private shared?: SharedServer;

  constructor(
    readonly identity: LanIdentity,
    /** What plain HTTP answers other devices (plainHttpGate); kept pointing at the HTTPS port. */
    readonly plainHttp: PlainHttpPolicy,
    private readonly httpsPort: number,
  ) {}

  /** The server to share, once it listens (startServer). */
  attach(shared: SharedServer): void {
    this.shared = shared;
  }

  get sharing(): boolean {
    return !!this.secure;
  }

  get https(): HttpsSharing | undefined {
    return this.secure;
  }

  private get server(): SharedServer {
    if (!this.shared) throw new Error('LanShare: no server attached');
    return this.shared;
  }

  /** HTTPS beside the plain HTTP server, on the host that server is bound to. */
  async serveHttps(host: string): Promise<HttpsSharing> {
    const { app } = this.server;
    this.secure = await startHttps(app, { identity: this.identity, host, port: this.httpsPort });
    this.plainHttp.httpsPort = this.secure.port;
    return this.secure;
  }

  info(): ShareInfo {
    const address = this.server.server.address() as AddressInfo;
    const lanHttp = reachableUrls('http', address.address, address.port);
    return {
      sharing: this.sharing,
      // Plain HTTP is offered to other devices only where DOORLIST_LAN_HTTP=1 allows it.
      httpUrls: !this.sharing ? [`http://${LOOPBACK_HOST}:${address.port}`] : this.plainHttp.allowLan ? lanHttp : [],
      httpsUrls: this.secure?.urls ?? [],
      authorityUrls: this.sharing ? lanHttp.map((url) => `${url}${AUTHORITY_PATH}`) : [],
      fingerprint: this.secure?.fingerprint,
      certificateFingerprint: this.secure?.certificateFingerprint,
    };
  }

  async start(): Promise<ShareInfo> {
    if (!this.secure) {
      await rebind(this.server.server, LAN_HOST);
      await this.serveHttps(LAN_HOST);
    }
    return this.info();
  }

  /** On quit: HTTPS goes with the app (the HTTP server is closed by its owner). */
  async close(): Promise<void> {
    await this.secure?.close();
    this.secure = undefined;
    this.plainHttp.httpsPort = undefined;
  }

  async stop(): Promise<ShareInfo> {
    if (this.secure) {
      await this.close();
      await rebind(this.server.server, LOOPBACK_HOST);
    }
    return this.info();
  }
}
