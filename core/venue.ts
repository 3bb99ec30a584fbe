/**
 * A venue's pure rules (issue 47): which addresses a venue's laptop may have, and which of two
 * laptops that both took over stays the venue's upstream. Browser-safe: no node modules.
 */

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** A private (RFC 1918), link-local or loopback IPv4 address, written out. */
function isLanIPv4(host: string): boolean {
  const m = IPV4.exec(host);
  if (!m) return false;
  const [a, b, c, d] = m.slice(1).map(Number);
  if ([a, b, c, d].some((n) => n > 255)) return false;
  return a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
}

/** Loopback, unique-local (fc00::/7) or link-local (fe80::/10) IPv6, written out in brackets. */
function isLanIPv6(host: string): boolean {
  if (!/^\[[0-9a-f:]+\]$/.test(host)) return false;
  const inner = host.slice(1, -1);
  return inner === '::1' || /^f[cd][0-9a-f]{0,2}:/.test(inner) || /^fe[89ab][0-9a-f]?:/.test(inner);
}

/**
 * A laptop's address as a venue takes it: `https://<LAN or loopback address>:<port>/api/v1`,
 * an address written out (a name resolves wherever its owner likes), nothing after the base.
 */
export function isVenueUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const u = new URL(url);
  if (u.protocol !== 'https:' || u.username || u.password || u.search || u.hash) return false;
  if (u.pathname.replace(/\/+$/, '') !== '/api/v1') return false;
  const host = u.hostname.toLowerCase();
  return isLanIPv4(host) || isLanIPv6(host);
}

/** What a laptop stands on when two of a venue claim the same epoch. */
export interface VenueClaim {
  epoch: number;
  fingerprint: string;
  url: string;
}

/**
 * Whether `a` outranks `b` as the venue's upstream: the higher epoch; at the same epoch, the
 * lower fingerprint, then the lower address (two laptops whose certificates share an
 * authority). Every laptop decides alike, so two that took over at once end with one upstream.
 */
export function outranks(a: VenueClaim, b: VenueClaim): boolean {
  if (a.epoch !== b.epoch) return a.epoch > b.epoch;
  if (a.fingerprint !== b.fingerprint) return a.fingerprint < b.fingerprint;
  return a.url < b.url;
}
