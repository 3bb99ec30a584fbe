import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import type * as X509 from '@peculiar/x509';
import { ValidationError } from '../core/errors';
import { MSG } from '../core/messages';
import { restrictMode } from './data-files';

/**
 * The laptop's own certificate authority and the LAN certificate it issues (DESIGN "Sharing on
 * the LAN"). A phone or another laptop trusts the authority once (GET /ca.crt); every LAN
 * certificate after that, for whatever addresses the laptop has that day, is trusted with it.
 * All four files live beside the database, 0600; the authority's key never leaves them.
 * A follower's certificate may instead come from its upstream's authority (a certificate
 * request signed there, kept with that authority's certificate beside it), so one authority
 * serves the whole venue.
 */

const subtle = crypto.webcrypto.subtle as SubtleCrypto;

let loaded: Promise<typeof X509> | undefined;

/** The X.509 library, loaded on first use: it is a second of a cold start, and loopback never needs it. */
function library(): Promise<typeof X509> {
  loaded ??= import('@peculiar/x509').then((x509) => {
    x509.cryptoProvider.set(crypto.webcrypto as Crypto);
    return x509;
  });
  return loaded;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 3600 * 1000;
// Ten years: trusted once on a phone, it should outlive the phone.
const AUTHORITY_DAYS = 3650;
// Browsers accept at most 398 days for a server certificate; it is renewed a month before its end.
const CERTIFICATE_DAYS = 397;
const RENEW_BEFORE_MS = 30 * DAY_MS;

export const AUTHORITY_FILE = 'doorlist-ca.crt';
export const AUTHORITY_KEY_FILE = 'doorlist-ca.key';
export const CERTIFICATE_FILE = 'doorlist-https.crt';
export const CERTIFICATE_KEY_FILE = 'doorlist-https.key';
/** The authority that issued the certificate, when it is not this laptop's own (an upstream's). */
export const ISSUER_FILE = 'doorlist-https-issuer.crt';

export interface Authority {
  /** PEM, as GET /ca.crt serves it. */
  cert: string;
  /** SHA-256 as browsers and phones show it: `AB:CD:...`. */
  fingerprint: string;
  certificate: X509.X509Certificate;
  privateKey: CryptoKey;
}

export interface LanCertificate {
  /** The server certificate followed by the authority's, so a client can check either. */
  chain: string;
  key: string;
  /** The server certificate's own SHA-256 (it changes with every new address). */
  fingerprint: string;
  /** The authority that issued it (PEM, and its SHA-256): this laptop's own, or its upstream's. */
  authority: string;
  authorityFingerprint: string;
  /** The names it was issued for: IP addresses and DNS names. */
  ips: string[];
  dns: string[];
  validTo: Date;
}

/** `AB:CD:...` of a DER certificate. */
export function fingerprintOf(der: ArrayBuffer | Buffer): string {
  const hex = crypto.createHash('sha256').update(Buffer.from(der as ArrayBuffer)).digest('hex').toUpperCase();
  return hex.match(/../g)!.join(':');
}

function serialNumber(): string {
  // Positive (the top bit clear) and unique enough that no two certificates share one.
  const bytes = crypto.randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes.toString('hex');
}

/** Written whole or not at all, readable by this user only. */
function writePrivate(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, text, { mode: 0o600 });
  fs.renameSync(temp, file);
}

function readPrivate(file: string): string | undefined {
  if (!fs.existsSync(file)) return undefined;
  // Files of earlier versions (the certificate was 0644) are narrowed as they are read.
  restrictMode(file, 0o600);
  return fs.readFileSync(file, 'utf8');
}

async function exportKey(key: CryptoKey): Promise<string> {
  const pkcs8 = Buffer.from(await subtle.exportKey('pkcs8', key)).toString('base64');
  return `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

function importKey(pem: string): Promise<CryptoKey> {
  const der = crypto.createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
  return subtle.importKey('pkcs8', der, ALGORITHM, false, ['sign']);
}

function authorityOf(x509: typeof X509, cert: string, privateKey: CryptoKey): Authority {
  const certificate = new x509.X509Certificate(cert);
  return { cert, fingerprint: fingerprintOf(certificate.rawData), certificate, privateKey };
}

/** The authority in `dir`, made on first use. */
export async function ensureAuthority(dir: string): Promise<Authority> {
  const x509 = await library();
  const certFile = path.join(dir, AUTHORITY_FILE);
  const keyFile = path.join(dir, AUTHORITY_KEY_FILE);
  const cert = readPrivate(certFile);
  const key = readPrivate(keyFile);
  if (cert && key) return authorityOf(x509, cert, await importKey(key));

  const keys = await subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const now = Date.now();
  const made = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=Doorlist ${os.hostname()} authority, O=Doorlist`,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + AUTHORITY_DAYS * DAY_MS),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      // Issues server certificates only, never another authority.
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The key first: a certificate on disk always has its key beside it.
  writePrivate(keyFile, await exportKey(keys.privateKey));
  writePrivate(certFile, made.toString('pem'));
  return authorityOf(x509, made.toString('pem'), keys.privateKey);
}

function namesOf(x509: typeof X509, certificate: X509.X509Certificate): { ips: string[]; dns: string[] } {
  const san = certificate.getExtension(x509.SubjectAlternativeNameExtension);
  const items = san?.names.items ?? [];
  return { ips: items.filter((n) => n.type === 'ip').map((n) => n.value), dns: items.filter((n) => n.type === 'dns').map((n) => n.value) };
}

/** Issues a server certificate for `ips` and `dns` signed by `authority`. */
export async function issueCertificate(authority: Authority, names: { ips: string[]; dns: string[] }): Promise<{ cert: string; key: string }> {
  const keys = await subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const made = await issueFor(authority, keys.publicKey, names);
  return { cert: made.toString('pem'), key: await exportKey(keys.privateKey) };
}

/** A server certificate for `publicKey` and `names`, signed by `authority`, for a server certificate's lifetime. */
async function issueFor(authority: Authority, publicKey: CryptoKey, names: { ips: string[]; dns: string[] }): Promise<X509.X509Certificate> {
  const x509 = await library();
  const now = Date.now();
  // Never past the authority's own end: a chain is only as valid as its authority.
  const notAfter = new Date(Math.min(now + CERTIFICATE_DAYS * DAY_MS, authority.certificate.notAfter.getTime()));
  return x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: `CN=${names.ips[0] ?? names.dns[0] ?? 'localhost'}, O=Doorlist`,
    issuer: authority.certificate.subject,
    notBefore: new Date(now - DAY_MS),
    notAfter,
    signingAlgorithm: ALGORITHM,
    publicKey,
    signingKey: authority.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([...names.dns.map((value) => ({ type: 'dns' as const, value })), ...names.ips.map((value) => ({ type: 'ip' as const, value }))]),
      await x509.AuthorityKeyIdentifierExtension.create(authority.certificate),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
    ],
  });
}

function certificateOf(x509: typeof X509, cert: string, key: string, issuer: string): LanCertificate {
  const certificate = new x509.X509Certificate(cert);
  const authority = new x509.X509Certificate(issuer);
  return {
    chain: `${cert.trim()}\n${issuer.trim()}\n`,
    key,
    fingerprint: fingerprintOf(certificate.rawData),
    authority: issuer,
    authorityFingerprint: fingerprintOf(authority.rawData),
    ...namesOf(x509, certificate),
    validTo: certificate.notAfter,
  };
}

/** Whether `cert` (with `key`) was signed by `issuer` (PEM), names at least `wanted`, and is not near its end. */
async function stillFits(x509: typeof X509, cert: string, key: string, issuer: string, wanted: { ips: string[]; dns: string[] }): Promise<boolean> {
  const certificate = new x509.X509Certificate(cert);
  const authority = new x509.X509Certificate(issuer);
  if (certificate.notAfter.getTime() < Date.now() + RENEW_BEFORE_MS) return false;
  // The key is written before the certificate: a stop between the two leaves a pair that does not match.
  if (!new crypto.X509Certificate(cert).checkPrivateKey(crypto.createPrivateKey(key))) return false;
  if (certificate.issuer !== authority.subject) return false;
  if (!(await certificate.verify({ publicKey: authority, signatureOnly: true }))) return false;
  const names = namesOf(x509, certificate);
  return wanted.ips.every((ip) => names.ips.includes(ip)) && wanted.dns.every((name) => names.dns.includes(name));
}

/**
 * The LAN certificate in `dir` for `names`: the one on disk while it still fits (issued by
 * this laptop's authority or by the upstream's kept beside it, every name, not near its end),
 * else a new one from this laptop's authority. A certificate of an earlier version
 * (self-signed) is replaced the same way.
 */
export async function ensureCertificate(dir: string, authority: Authority, names: { ips: string[]; dns: string[] }): Promise<LanCertificate> {
  const x509 = await library();
  const certFile = path.join(dir, CERTIFICATE_FILE);
  const keyFile = path.join(dir, CERTIFICATE_KEY_FILE);
  const issuerFile = path.join(dir, ISSUER_FILE);
  const cert = readPrivate(certFile);
  const key = readPrivate(keyFile);
  const issuer = readPrivate(issuerFile) ?? authority.cert;
  // An upstream signs a follower's LAN names only; its other addresses are not the venue's.
  const wanted = issuer === authority.cert ? names : lanOnly(names);
  if (cert && key && (await stillFits(x509, cert, key, issuer, wanted).catch(() => false))) return certificateOf(x509, cert, key, issuer);
  const made = await issueCertificate(authority, names);
  writePrivate(keyFile, made.key);
  writePrivate(certFile, made.cert);
  fs.rmSync(issuerFile, { force: true });
  return certificateOf(x509, made.cert, made.key, authority.cert);
}

/**
 * Keeps a certificate another authority issued for this laptop (its upstream's, from a signed
 * request) as the LAN certificate, once it proves to be for `key`, signed by `issuer` and for
 * `names`. What it replaces is gone; ensureCertificate serves it from now on.
 */
export async function installIssuedCertificate(dir: string, issued: { cert: string; key: string; issuer: string }, names: { ips: string[]; dns: string[] }): Promise<LanCertificate> {
  const x509 = await library();
  if (!(await stillFits(x509, issued.cert, issued.key, issued.issuer, names).catch(() => false))) throw new Error('the issued certificate does not fit this laptop');
  // The issuer first: a stop between two writes leaves a pair that no longer fits, which is replaced.
  writePrivate(path.join(dir, ISSUER_FILE), issued.issuer);
  writePrivate(path.join(dir, CERTIFICATE_KEY_FILE), issued.key);
  writePrivate(path.join(dir, CERTIFICATE_FILE), issued.cert);
  return certificateOf(x509, issued.cert, issued.key, issued.issuer);
}

/** How many names a certificate request may carry: a laptop's addresses and names, not a list. */
export const REQUEST_MAX_NAMES = 32;
const SUBJECT_ALT_NAME = '2.5.29.17';
// One label (a host name) or one label under .local (mDNS): never a name of the internet.
const LAN_DNS_NAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.local)?$/i;

/** Whether `ip` is loopback, private or link-local (IPv4 or IPv6): an address only a LAN reaches. */
export function isLanAddress(ip: string): boolean {
  if (net.isIPv4(ip)) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  if (!net.isIPv6(ip)) return false;
  const lower = ip.toLowerCase();
  if (lower === '::1') return true;
  if (lower.startsWith('::ffff:')) return isLanAddress(lower.slice(7));
  return /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower);
}

/** The names of `names` an upstream signs for a follower: LAN addresses and host names. */
export function lanOnly(names: { ips: string[]; dns: string[] }): { ips: string[]; dns: string[] } {
  return { ips: names.ips.filter(isLanAddress), dns: names.dns.filter((value) => value === 'localhost' || LAN_DNS_NAME.test(value)) };
}

/** Why these names may not be signed for a follower (the first name refused), or null when all may. */
export function refusedName(names: { ips: string[]; dns: string[]; other: number }): string | null {
  if (names.other > 0) return MSG.certificateRequestNameKind;
  if (names.ips.length + names.dns.length === 0) return MSG.certificateRequestNoNames;
  if (names.ips.length + names.dns.length > REQUEST_MAX_NAMES) return MSG.certificateRequestTooManyNames(REQUEST_MAX_NAMES);
  const ip = names.ips.find((value) => !isLanAddress(value));
  if (ip !== undefined) return MSG.certificateRequestNotLan(ip);
  const dns = names.dns.find((value) => value !== 'localhost' && !LAN_DNS_NAME.test(value));
  if (dns !== undefined) return MSG.certificateRequestNotLan(dns);
  return null;
}

/** A key pair and a certificate request (PKCS#10, PEM) for `names`: what a follower sends its upstream. */
export async function makeCertificateRequest(names: { ips: string[]; dns: string[] }): Promise<{ request: string; key: string }> {
  const x509 = await library();
  const keys = await subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name: `CN=${names.ips[0] ?? names.dns[0] ?? 'localhost'}, O=Doorlist`,
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [new x509.SubjectAlternativeNameExtension([...names.dns.map((value) => ({ type: 'dns' as const, value })), ...names.ips.map((value) => ({ type: 'ip' as const, value }))])],
  });
  return { request: request.toString('pem'), key: await exportKey(keys.privateKey) };
}

function refused(message: string): ValidationError {
  return ValidationError.field('certificate_request', message);
}

/**
 * Signs a follower's certificate request with `authority` for the names it asks, once they are
 * all LAN names; the lifetime is this laptop's choice (a server certificate's), never the
 * request's. Only the request's own key is named: its signature proves the follower holds it.
 */
export async function signCertificateRequest(authority: Authority, pem: string): Promise<string> {
  const x509 = await library();
  let request: X509.Pkcs10CertificateRequest;
  try {
    request = new x509.Pkcs10CertificateRequest(pem);
  } catch {
    throw refused(MSG.certificateRequestUnreadable);
  }
  const algorithm = request.publicKey.algorithm as EcKeyAlgorithm;
  if (algorithm.name !== 'ECDSA' || algorithm.namedCurve !== 'P-256') throw refused(MSG.certificateRequestKey);
  if (!(await request.verify().catch(() => false))) throw refused(MSG.certificateRequestSignature);
  const extension = request.getExtension(SUBJECT_ALT_NAME);
  const items = extension ? new x509.SubjectAlternativeNameExtension(extension.rawData).names.items : [];
  const names = { ips: items.filter((n) => n.type === 'ip').map((n) => n.value), dns: items.filter((n) => n.type === 'dns').map((n) => n.value), other: items.filter((n) => n.type !== 'ip' && n.type !== 'dns').length };
  const refusal = refusedName(names);
  if (refusal) throw refused(refusal);
  return (await issueFor(authority, await request.publicKey.export(ALGORITHM, ['verify']), names)).toString('pem');
}
