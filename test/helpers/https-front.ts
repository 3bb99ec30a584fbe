import crypto from 'node:crypto';
import https from 'node:https';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import * as x509 from '@peculiar/x509';

export interface TestCertificate {
  /** PEM: the certificate, then its authority's when it has one (the chain a server presents). */
  chain: string;
  key: string;
  /** SHA-256 `AA:BB:...` of the certificate itself, and of its authority (the same when self-signed). */
  fingerprint: string;
  authorityFingerprint: string;
}

const fingerprintOf = (pem: string) => new crypto.X509Certificate(pem).fingerprint256;

/** An authority of the test's own, as a laptop keeps one (EC keys: quick to make). */
export async function makeAuthority(name: string): Promise<{ cert: string; key: string }> {
  const made = await generate([{ name: 'commonName', value: name }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true },
    ],
  });
  return { cert: made.cert, key: made.private };
}

/** A certificate for 127.0.0.1, issued by `authority`, or self-signed without one. */
export async function makeCertificate(authority?: { cert: string; key: string }): Promise<TestCertificate> {
  const made = await generate([{ name: 'commonName', value: 'Doorlist test upstream' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
    ...(authority ? { ca: authority } : {}),
  });
  return {
    chain: authority ? `${made.cert.trim()}\n${authority.cert.trim()}\n` : made.cert,
    key: made.private,
    fingerprint: fingerprintOf(made.cert),
    authorityFingerprint: fingerprintOf(authority?.cert ?? made.cert),
  };
}

x509.cryptoProvider.set(crypto.webcrypto as Crypto);

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/**
 * A forger's certificate for 127.0.0.1: it names `authority` as its issuer (its name and its
 * key id, both public, GET /ca.crt) but is signed by another key, and is served with the real
 * authority appended, so the pinned fingerprint appears in the chain. Only a signature check
 * tells it from the real thing.
 */
export async function forgeCertificate(authority: { cert: string }): Promise<TestCertificate> {
  const real = new x509.X509Certificate(authority.cert);
  const ski = real.getExtension(x509.SubjectKeyIdentifierExtension);
  const keyId = ski ? ski.keyId : (await x509.SubjectKeyIdentifierExtension.create(await real.publicKey.export())).keyId;
  const leafKeys = await crypto.webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const forgerKeys = await crypto.webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const now = Date.now();
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '0badc0de',
    subject: 'CN=127.0.0.1, O=Doorlist',
    issuer: real.subject,
    notBefore: new Date(now - 86_400_000),
    notAfter: new Date(now + 86_400_000),
    signingAlgorithm: EC,
    publicKey: leafKeys.publicKey,
    signingKey: forgerKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }]),
      new x509.AuthorityKeyIdentifierExtension(keyId),
    ],
  });
  const pkcs8 = Buffer.from(await crypto.webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey)).toString('base64');
  const pem = leaf.toString('pem');
  return {
    chain: `${pem.trim()}\n${authority.cert.trim()}\n`,
    key: `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`,
    fingerprint: fingerprintOf(pem),
    authorityFingerprint: fingerprintOf(authority.cert),
  };
}

/**
 * A Doorlist's request handler served over HTTPS on loopback with a test certificate, as a
 * laptop sharing the LAN serves it; `use` changes the certificate for new connections.
 * `requests` counts what reached the handler (a refused certificate must send nothing), and
 * `connections` the connections opened (each attempt of a follower's cycle), and
 * `authorizations` the API keys the requests carried.
 */
export class HttpsFront {
  requests = 0;
  connections = 0;
  readonly authorizations: string[] = [];

  private constructor(private readonly server: https.Server) {}

  /** `port`: 0 picks a free one; a front closed earlier can come back on its own. */
  static async start(app: RequestListener, certificate: TestCertificate, port = 0): Promise<HttpsFront> {
    let front: HttpsFront | undefined;
    const server = https.createServer({ cert: certificate.chain, key: certificate.key }, (req, res) => {
      front!.requests++;
      if (req.headers.authorization) front!.authorizations.push(req.headers.authorization);
      app(req, res);
    });
    front = new HttpsFront(server);
    server.on('connection', () => front!.connections++);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return front;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get baseUrl(): string {
    return `https://127.0.0.1:${this.port}/api/v1`;
  }

  use(certificate: TestCertificate): void {
    this.server.setSecureContext({ cert: certificate.chain, key: certificate.key });
    // Connections kept alive still speak with the old certificate.
    this.server.closeAllConnections();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
