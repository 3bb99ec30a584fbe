import type { Logger } from 'pino';
import type { Db } from '../../db/knex';
import { listSyncs, type SyncRow } from '../../db/repositories/sync';
import { lanOnly, makeCertificateRequest } from '../lan-certificates';
import { lanNames, type LanShare } from '../lan';
import { parseFingerprint } from '../../core/fingerprint';
import { Upstream, type UpstreamTiming } from './upstream';
import { loggedReason } from './log-fields';

/** After an upstream refused or did not answer, it is asked again no sooner than this many checks. */
const RETRY_CHECKS = 30;

/**
 * One authority for the venue's phones (DESIGN "A venue that outlives its box-office
 * laptop"): while this laptop shares on the LAN and follows an event over HTTPS, its LAN
 * certificate is issued by its upstream's authority. It makes a key pair and a certificate
 * request for its LAN names, has the upstream sign it over the pinned link (with the sync's
 * key), and serves the result; no key leaves either laptop. A certificate an upstream signed
 * is kept while it fits (every name, not near its end), whoever is the upstream later: the
 * phones that trusted that authority go on trusting this laptop. Only the authority the
 * upstream is pinned by is taken: an upstream pinned by this laptop's own authority (the old box
 * office following the laptop that took over) is not asked, and a certificate of any other
 * authority than the pin (an upstream serving under an authority it does not hold) is not kept.
 */
export class VenueCertificate {
  private timer: NodeJS.Timeout | undefined;
  private readonly tried = new Map<number, number>();
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly lan: LanShare,
    private readonly logger: Logger,
    /** DOORLIST_VENUE_PROBE_S: a follower's certificate is the venue's well before its upstream could be missed. */
    private readonly intervalMs: number,
    private readonly timing: Partial<UpstreamTiming> = {},
  ) {}

  start(): this {
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
    void this.check();
    return this;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One look: asks an upstream to sign when the certificate served is this laptop's own authority's. */
  check(): Promise<void> {
    this.running ??= this.once().finally(() => (this.running = undefined));
    return this.running;
  }

  private async once(): Promise<void> {
    if (!this.lan.sharing) return;
    const served = await this.lan.identity.certificate();
    const own = await this.lan.identity.authority();
    if (served.authorityFingerprint !== own.fingerprint) return;
    const now = Date.now();
    const mine = parseFingerprint(own.fingerprint);
    const sync = (await listSyncs(this.db)).find((s) => s.url.startsWith('https:') && s.fingerprint !== mine && (this.tried.get(s.id) ?? 0) <= now);
    if (!sync) return;
    // Held back only after a refusal: a laptop whose addresses changed since it was signed (its
    // own authority's certificate then covers them) asks again at its next look.
    await this.ask(sync).catch((err: Error) => {
      this.tried.set(sync.id, now + RETRY_CHECKS * this.intervalMs);
      this.logger.warn({ sync_id: sync.id, reason: loggedReason(err.message) }, 'the upstream did not sign this laptop\'s LAN certificate; it keeps its own');
    });
  }

  private async ask(sync: SyncRow): Promise<void> {
    const names = lanOnly(lanNames());
    const { request, key } = await makeCertificateRequest(names);
    const upstream = new Upstream(sync.url, sync.upstream_key, { fingerprint: sync.fingerprint, authority: sync.authority_pem, followed: true, timing: this.timing });
    const issued = await upstream.certificate(sync.remote_event_id, request);
    if (parseFingerprint(issued.authority_fingerprint) !== sync.fingerprint) throw new Error(`signed by ${issued.authority_fingerprint}, not by the authority the upstream is pinned by`);
    const installed = await this.lan.identity.install({ cert: issued.certificate, key, issuer: issued.authority }, names);
    this.logger.info({ sync_id: sync.id, authority: installed.authorityFingerprint }, "this laptop's LAN certificate is now issued by its upstream's authority");
  }
}
