import type { HttpDeps } from '../http/route';
import type { Mailer } from '../services/mailer';
import type { LocalWrites } from '../services/local-writes';
import type { LanShare } from '../lan';
import type { BadgePrinting } from '../badges/print';

/**
 * What every router is built from (server/app.ts makes it once per app): what route() needs
 * (server/http/route.ts `HttpDeps`) and the services the routes call.
 */
export interface RouteDeps extends HttpDeps {
  mailer: Mailer;
  /** Answered writes to an event, for the sync follower to push without waiting for its timer. */
  localWrites: LocalWrites;
  /** Sharing on the LAN: addresses, fingerprints and the laptop's authority. */
  lan: LanShare;
  /** The badge worker and the bounds on badge requests. */
  badges: BadgePrinting;
}
