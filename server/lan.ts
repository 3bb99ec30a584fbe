import crypto from 'node:crypto';
import fs from 'node:fs';
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

/** Sharing binds every interface; anything else on a loopback address stays plain HTTP. */
export const LAN_HOST = '0.0.0.0';
export const LOOPBACK_HOST = '127.0.0.1';
const CERT_FILE = 'doorlist-https.crt';
const KEY_FILE = 'doorlist-https.key';
const CERT_DAYS = 825;

export interface Certificate {
  cert: string;
  key: string;
  /** SHA-256 fingerprint as browsers show it: `AB:CD:...`. */
  fingerprint: string;
  certPath: string;
}

export interface HttpsSharing {
  port: number;
  /** Addresses other devices can open, one per LAN interface. */
  urls: string[];
  fingerprint: string;
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

/**
 * Plain HTTP serves this machine only: tokens and guest data must not cross the venue's
 * Wi-Fi in clear. From another device a page request is redirected to HTTPS, an API call (or
 * anything but GET/HEAD) is refused with the address to use instead.
 */
export function plainHttpGate(listener: RequestListener, policy: PlainHttpPolicy): RequestListener {
  return (req, res) => {
    if (policy.allowLan || isLoopbackAddress(req.socket.remoteAddress)) return listener(req, res);
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
function certificatePaths(dbPath: string) {
  const dir = isPostgresUrl(dbPath) ? defaultDataDir() : path.dirname(path.resolve(dbPath));
  return { dir, certPath: path.join(dir, CERT_FILE), keyPath: path.join(dir, KEY_FILE) };
}

function readCertificate(certPath: string, keyPath: string): Certificate | undefined {
  if (!fs.existsSync(certPath) || !fs.existsSync(keyPath)) return undefined;
  // Files of earlier versions (the certificate was 0644) are narrowed as they are read.
  restrictMode(keyPath, 0o600);
  restrictMode(certPath, 0o600);
  const cert = fs.readFileSync(certPath, 'utf8');
  const x509 = new crypto.X509Certificate(cert);
  if (new Date(x509.validTo).getTime() < Date.now() + 24 * 3600 * 1000) return undefined;
  return { cert, key: fs.readFileSync(keyPath, 'utf8'), fingerprint: x509.fingerprint256, certPath };
}

/**
 * The HTTPS certificate kept beside the database, made on first use. It stays the same
 * across restarts so the fingerprint staff accepted on their phones keeps matching.
 */
export async function ensureCertificate(dbPath: string): Promise<Certificate> {
  const { dir, certPath, keyPath } = certificatePaths(dbPath);
  const existing = readCertificate(certPath, keyPath);
  if (existing) return existing;
  const hostname = os.hostname();
  // Loaded here, on first use: it is a tenth of a second of the start, and loopback never needs it.
  const { generate } = await import('selfsigned');
  const made = await generate([{ name: 'commonName', value: `Doorlist ${hostname}` }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + CERT_DAYS * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 2, value: hostname },
          { type: 7, ip: LOOPBACK_HOST },
          ...lanAddresses().map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(keyPath, made.private, { mode: 0o600 });
  fs.writeFileSync(certPath, made.cert, { mode: 0o600 });
  return { cert: made.cert, key: made.private, fingerprint: new crypto.X509Certificate(made.cert).fingerprint256, certPath };
}

/** Serves `app` over HTTPS on `host:port` (0 picks a free port) with the database's certificate. */
export async function startHttps(app: RequestListener, options: { dbPath: string; host: string; port: number }): Promise<HttpsSharing> {
  const certificate = await ensureCertificate(options.dbPath);
  const server = https.createServer({ cert: certificate.cert, key: certificate.key }, withHsts(app));
  server.keepAliveTimeout = 65_000;
  await listen(server, options.port, options.host);
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    urls: reachableUrls('https', options.host, port),
    fingerprint: certificate.fingerprint,
    close: () => closeServer(server),
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
  fingerprint?: string;
}

/**
 * The desktop app's "Share on the LAN" switch: rebinds the running server to every
 * interface and adds HTTPS, or goes back to loopback only.
 */
export class LanShare {
  private secure?: HttpsSharing;

  constructor(
    private readonly running: { server: http.Server; app: RequestListener; https?: HttpsSharing; plainHttp: PlainHttpPolicy },
    private readonly options: { dbPath: string; httpsPort: number },
  ) {
    this.secure = running.https;
  }

  get sharing(): boolean {
    return !!this.secure;
  }

  info(): ShareInfo {
    const address = this.running.server.address() as AddressInfo;
    // Plain HTTP is offered to other devices only where DOORLIST_LAN_HTTP=1 allows it.
    const lanHttp = this.sharing && this.running.plainHttp.allowLan;
    return {
      sharing: this.sharing,
      httpUrls: !this.sharing ? [`http://${LOOPBACK_HOST}:${address.port}`] : lanHttp ? reachableUrls('http', LAN_HOST, address.port) : [],
      httpsUrls: this.secure?.urls ?? [],
      fingerprint: this.secure?.fingerprint,
    };
  }

  async start(): Promise<ShareInfo> {
    if (!this.secure) {
      await rebind(this.running.server, LAN_HOST);
      this.secure = await startHttps(this.running.app, { dbPath: this.options.dbPath, host: LAN_HOST, port: this.options.httpsPort });
      this.running.plainHttp.httpsPort = this.secure.port;
    }
    return this.info();
  }

  /** On quit: HTTPS goes with the app (the HTTP server is closed by its owner). */
  async close(): Promise<void> {
    await this.secure?.close();
    this.secure = undefined;
    this.running.plainHttp.httpsPort = undefined;
  }

  async stop(): Promise<ShareInfo> {
    if (this.secure) {
      await this.secure.close();
      this.secure = undefined;
      this.running.plainHttp.httpsPort = undefined;
      await rebind(this.running.server, LOOPBACK_HOST);
    }
    return this.info();
  }
}
