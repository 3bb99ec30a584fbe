import type { RequestHandler } from 'express';
import type { Conn } from '../../db/knex';
import { venueUrls } from '../../db/repositories/venue';
import { isVenueUrl } from '../../core/venue';

const ALLOWED_HEADERS = 'authorization, content-type, accept';
const ALLOWED_METHODS = 'GET, POST, PUT, DELETE';

/**
 * The API across origins for the venue's own laptops only: a door screen loaded from one laptop
 * of the venue goes on at another when its own stops answering (DESIGN "A venue that outlives
 * its box-office laptop"). An origin is allowed once it is the LAN HTTPS base of a laptop this
 * one knows in a venue (a member, or the upstream it follows); any other gets no CORS header,
 * and its browser keeps the answer from it. Credentials travel as a token header, never a cookie.
 * The venue is read for each cross-origin request (a laptop joins, a follow moves: no stale
 * copy); a page's requests to its own laptop never ask.
 */
export function venueCors(db: Conn): RequestHandler {
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (!origin || origin === `${req.protocol}://${req.get('host')}`) return next();
    venueUrls(db).then((urls) => {
      if (!urls.some((url) => isVenueUrl(url) && new URL(url).origin === origin)) return next();
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
