import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

const API_PATH = '/api/';

/**
 * Headers every answer carries, set before any handler runs (the scan's fast path included):
 * no MIME sniffing, never inside another site's frame, no referrer leaving the venue, and
 * API answers (guest data, tokens) never kept by a browser or proxy cache.
 */
export function setSecurityHeaders(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
  res.setHeader('Referrer-Policy', 'no-referrer');
  if (req.url?.startsWith(API_PATH)) res.setHeader('Cache-Control', 'no-store');
}

export function withSecurityHeaders(listener: RequestListener): RequestListener {
  return (req, res) => {
    setSecurityHeaders(req, res);
    listener(req, res);
  };
}

/** HTTPS answers also tell browsers to stay on HTTPS for this address (a year). */
export function withHsts(listener: RequestListener): RequestListener {
  return (req, res) => {
    res.setHeader('Strict-Transport-Security', 'max-age=31536000');
    listener(req, res);
  };
}
