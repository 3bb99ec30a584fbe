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
