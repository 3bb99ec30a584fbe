import type { RequestHandler } from 'express';
import type { Conn } from '../../db/knex';
import { venueUrls } from '../../db/repositories/venue';
import { isVenueUrl } from '../../core/venue';

/** How long the venue's origins are kept before they are read again (a laptop joins, a follow moves). */
const ORIGINS_TTL_MS = 2000;
const ALLOWED_HEADERS = 'authorization, content-type, accept';
const ALLOWED_METHODS = 'GET, POST, PUT, DELETE';

/**
 * The API across origins for the venue's own laptops only: a door screen loaded from one laptop
 * of the venue goes on at another when its own stops answering (DESIGN "A venue that outlives
 * its box-office laptop"). An origin is allowed once it is the LAN HTTPS base of a laptop this
 * one knows in a venue (a member, or the upstream it follows); any other gets no CORS header,
 * and its browser keeps the answer from it. Credentials travel as a token header, never a cookie.
 */
export function venueCors(db: Conn): RequestHandler {
  let known: { until: number; origins: Promise<Set<string>> } | undefined;
  const origins = () => {
    const now = Date.now();
    if (!known || known.until <= now) {
      const read = venueUrls(db).then((urls) => new Set(urls.filter(isVenueUrl).map((url) => new URL(url).origin)));
      known = { until: now + ORIGINS_TTL_MS, origins: read.catch(() => new Set<string>()) };
    }
    return known.origins;
  };
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (!origin) return next();
    origins().then((allowed) => {
      if (!allowed.has(origin)) return next();
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.vary('Origin');
      if (req.method !== 'OPTIONS') return next();
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
    }, next);
  };
}
