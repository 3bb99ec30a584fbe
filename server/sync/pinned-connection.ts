import crypto from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import { MSG } from '../../core/messages';
import { showFingerprint } from '../../core/fingerprint';
import { UpstreamError } from './upstream-error';

/**
 * How this laptop decides to trust an upstream's certificate, before a byte of a request (and
 * its key) is sent. A pin is cryptographic proof, never a name found in a chain:
 * - pinned to a certificate: only that exact certificate passes (the TLS handshake proves the
 *   upstream holds its key);
 * - pinned to an authority: the connection is made with that authority as its only trust
 *   anchor and normal verification (signature, dates, the address the upstream is reached by).
 *   The authority's certificate is the one whose SHA-256 is the pin: learned from the chain
 *   the upstream presents (the pin makes it exactly that certificate, however it came), or
 *   kept with the sync;
 * - no pin: the system's own trust, host name included.
 */

export interface PinnedTarget {
  host: string;
  port: number;
  /** 64 lowercase hex digits; none: the system's trust. */
  pin?: string | null;
  /** PEM of the pinned authority when already known (kept with the sync). */
  authority?: string | null;
  /** Set for a sync already followed: a certificate that no longer matches its pin has changed. */
  followed?: boolean;
  connectMs: number;
  signal: AbortSignal;
}

export interface PinnedSocket {
  socket: tls.TLSSocket;
  /** The fingerprint the chain showed (its top: the authority when presented), `AA:BB:...`. */
  shown: string;
  /** PEM of the pinned authority the connection verified against; null for a certificate pin or no pin. */
  authority: string | null;
}

interface ChainEntry {
  hex: string;
  raw: Buffer;
}

/** SHA-256 (64 lowercase hex digits) of a PEM certificate; null when it is none. */
export function pemFingerprint(pem: string): string | null {
  try {
    return crypto.createHash('sha256').update(new crypto.X509Certificate(pem).raw).digest('hex');
  } catch {
    return null;
  }
}

/** A TLS connection to the upstream whose certificate this laptop trusts; otherwise the reason, and the connection closed. */
export async function connectPinned(target: PinnedTarget): Promise<PinnedSocket> {
  const { pin } = target;
  if (!pin) {
    const socket = await handshake(target);
    const shown = showFingerprint(topOf(socket));
    if (socket.authorized) return { socket, shown, authority: null };
    socket.destroy();
    throw new UpstreamError('error', MSG.syncCertificateUntrusted(shown), 'fingerprint');
  }
  // A kept authority is used only while it is still the one pinned.
  let authority = target.authority && pemFingerprint(target.authority) === pin ? target.authority : null;
  if (authority === null) {
    const probe = await handshake(target);
    const chain = presentedChain(probe);
    const shown = showFingerprint(chain[chain.length - 1]?.hex ?? '');
    if (chain[0]?.hex === pin) return { socket: probe, shown, authority: null };
    probe.destroy();
    const named = chain.slice(1).find((c) => c.hex === pin);
    if (!named) throw mismatch(target, shown);
    authority = new crypto.X509Certificate(named.raw).toString();
  }
  const socket = await handshake(target, authority);
  const chain = presentedChain(socket);
  const shown = showFingerprint(chain[chain.length - 1]?.hex ?? '');
  if (socket.authorized) return { socket, shown, authority };
  const reason = String(socket.authorizationError ?? '');
  socket.destroy();
  // The exact certificate pinned cannot reach here: it is its own authority only when self-signed, and then verifies.
  if (reason === 'ERR_TLS_CERT_ALTNAME_INVALID') throw new UpstreamError('error', MSG.syncCertificateWrongHost(target.host), 'fingerprint');
  if (reason === 'CERT_HAS_EXPIRED' || reason === 'CERT_NOT_YET_VALID') throw new UpstreamError('error', MSG.syncCertificateInvalid(reason === 'CERT_HAS_EXPIRED' ? 'expired' : 'not yet valid'), 'fingerprint');
  // Names the pinned authority (presents it, or claims it as issuer) without its signature: a forgery.
  if (chain.some((c) => c.hex === pin) || reason === 'CERT_SIGNATURE_FAILURE' || claimsIssuer(chain[0], authority)) {
    throw new UpstreamError('error', MSG.syncCertificateForged, 'fingerprint');
  }
  throw mismatch(target, shown);
}

function claimsIssuer(leaf: ChainEntry | undefined, authority: string): boolean {
  if (!leaf) return false;
  try {
    return new crypto.X509Certificate(leaf.raw).issuer === new crypto.X509Certificate(authority).subject;
  } catch {
    return false;
  }
}

function mismatch(target: PinnedTarget, shown: string): UpstreamError {
  return new UpstreamError('error', target.followed ? MSG.syncCertificateChanged(shown) : MSG.syncCertificateMismatch(shown), 'fingerprint');
}

/**
 * The TLS handshake alone: `authorized` says whether the chain verified (against `ca` when
 * given, as the only anchor, else the system's), host name included; nothing is sent yet.
 */
function handshake(target: PinnedTarget, ca?: string): Promise<tls.TLSSocket> {
  const { host, port, signal } = target;
  const socket = tls.connect({
    host,
    port,
    servername: net.isIP(host) ? undefined : host,
    // Judged here, after the handshake, so a refusal can say what the upstream showed.
    rejectUnauthorized: false,
    ...(ca ? { ca: [ca] } : {}),
    ALPNProtocols: ['http/1.1'],
  });
  return connectWithin(socket, 'secureConnect', target.connectMs, signal);
}

/**
 * A socket once it is connected (`ready`: `connect`, or `secureConnect` after a handshake),
 * within `connectMs` and while `signal` holds; otherwise it is destroyed and the promise says
 * why (offline: no connection in time; the signal's reason when stopped).
 */
export function connectWithin<S extends net.Socket>(socket: S, ready: 'connect' | 'secureConnect', connectMs: number, signal: AbortSignal): Promise<S> {
  return new Promise((resolve, reject) => {
    const fail = (err: unknown) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      reject(err);
    };
    const onAbort = () => fail(signal.reason);
    const timer = setTimeout(() => fail(new UpstreamError('offline', MSG.syncUnreachable(`no connection within ${connectMs / 1000} s`))), connectMs);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', fail);
    socket.once(ready, () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.off('error', fail);
      resolve(socket);
    });
  });
}

function topOf(socket: tls.TLSSocket): string {
  const chain = presentedChain(socket);
  return chain[chain.length - 1]?.hex ?? '';
}

/** Each certificate the upstream presented, the leaf first, with its SHA-256. */
function presentedChain(socket: tls.TLSSocket): ChainEntry[] {
  const chain: ChainEntry[] = [];
  let cert: tls.DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  while (cert?.raw) {
    const hex = crypto.createHash('sha256').update(cert.raw).digest('hex');
    if (chain.some((c) => c.hex === hex)) break;
    chain.push({ hex, raw: cert.raw });
    cert = cert.issuerCertificate;
  }
  return chain;
}
