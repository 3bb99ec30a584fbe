import { z } from './zod';

const Fingerprint = z.string().regex(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);

export const LanState = z
  .object({
    sharing: z.boolean().describe('Whether this laptop serves the LAN (HTTPS beside plain HTTP).'),
    https_urls: z.array(z.string()).describe('The door screen for phones and other laptops, one address per LAN interface.'),
    http_urls: z.array(z.string()).describe('Plain HTTP: loopback while not sharing; to the LAN only where DOORLIST_LAN_HTTP=1 allows it.'),
    authority_urls: z.array(z.string()).describe("GET /ca.crt over plain HTTP: a phone downloads the laptop's authority there and trusts it once."),
    fingerprint: Fingerprint.nullable().describe("SHA-256 of the laptop's authority (AA:BB:...): what a phone shows when installing it and what a follower pins."),
    certificate_fingerprint: Fingerprint.nullable().describe('SHA-256 of the certificate served now (it changes with the addresses).'),
  })
  .openapi('LanState');

/** A PEM block of a few hundred bytes; bounded well above what one laptop's names take. */
const pem = z.string().min(1).max(16_384);

export const CertificateRequest = z
  .object({
    certificate_request: pem.describe("The follower's certificate request (PKCS#10, PEM) for its LAN addresses and host names; its own key stays with it."),
  })
  .openapi('CertificateRequest');

export const IssuedCertificate = z
  .object({
    certificate: pem.describe('The server certificate (PEM), signed by this laptop\'s authority for the names asked.'),
    authority: pem.describe("This laptop's authority (PEM), to serve beside the certificate."),
    authority_fingerprint: Fingerprint.describe("SHA-256 of this laptop's authority (AA:BB:...): what the venue's phones trust."),
  })
  .openapi('IssuedCertificate');

export const DoorPass = z
  .object({
    pass: z.string().describe("Signs a door screen in at every laptop of the event's venue, for this event at the door role only (Authorization: Token <pass>); never the venue credential itself"),
    expires_at: z.string().describe('When the pass stops working (UTC); a screen gets a new one while its laptop answers'),
    event_uid: z.string(),
    epoch: z.number().int().describe('The venue epoch this laptop knows'),
    laptops: z
      .array(
        z.object({
          name: z.string(),
          url: z.string().describe("The laptop's LAN HTTPS base, .../api/v1"),
          fingerprint: Fingerprint.describe("SHA-256 of its certificate's authority (AA:BB:...)"),
          event_id: z.number().int().describe("The laptop's own id of the event"),
        }),
      )
      .describe("The venue's other laptops this laptop knows, where the screen looks once this one stops answering"),
  })
  .openapi('DoorPass');
