export type UpstreamField = 'url' | 'key' | 'event_id' | 'fingerprint';

/**
 * Why talking to the upstream failed, as the door reads it: `offline` while it cannot be
 * reached (no network, refused, hung, too slow, 5xx), `error` when it answered no or answered
 * wrong. `field`: what the user would correct when following.
 */
export class UpstreamError extends Error {
  constructor(
    readonly state: 'offline' | 'error',
    message: string,
    readonly field: UpstreamField = 'url',
  ) {
    super(message);
  }
}
