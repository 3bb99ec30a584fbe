import type { Logger } from 'pino';
import type { Db } from '../../db/knex';
import { listSyncs, type SyncRow } from '../../db/repositories/sync';
import { lanOnly, makeCertificateRequest } from '../lan-certificates';
import { lanNames, type LanShare } from '../lan';
import { Upstream, type UpstreamTiming } from './upstream';

/** How often a sharing follower checks that its LAN certificate is its upstream's authority's. */
export const VENUE_CERTIFICATE_INTERVAL_MS = 10_000;
/** After an upstream refused or did not answer, it is asked again no sooner than this. */
const RETRY_MS = 5 * 60_000;

/**
 * One authority for the venue's phones (DESIGN "A venue that outlives its box-office
 * laptop"): while this laptop shares on the LAN and follows an event over HTTPS, its LAN
 * certificate is issued by its upstream's authority. It makes a key pair and a certificate
 * request for its LAN names, has the upstream sign it over the pinned link (with the sync's
 * key), and serves the result; no key leaves either laptop. A certificate an upstream signed
 * is kept while it fits (every name, not near its end), whoever is the upstream later: the
 * phones that trusted that authority go on trusting this laptop.
 */
export class VenueCertificate {
  private timer: NodeJS.Timeout | undefined;
  private readonly tried = new Map<number, number>();
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly lan: LanShare,
    private readonly logger: Logger,
    private readonly intervalMs = VENUE_CERTIFICATE_INTERVAL_MS,
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
    const sync = (await listSyncs(this.db)).find((s) => s.url.startsWith('https:') && (this.tried.get(s.id) ?? 0) <= now);
    if (!sync) return;
    this.tried.set(sync.id, now + RETRY_MS);
    await this.ask(sync).catch((err: Error) => this.logger.warn({ sync_id: sync.id, reason: err.message.slice(0, 300) }, 'the upstream did not sign this laptop\'s LAN certificate; it keeps its own'));
  }

  private async ask(sync: SyncRow): Promise<void> {
    const names = lanOnly(lanNames());
    const { request, key } = await makeCertificateRequest(names);
    const upstream = new Upstream(sync.url, sync.upstream_key, { fingerprint: sync.fingerprint, authority: sync.authority_pem, followed: true, timing: this.timing });
    const issued = await upstream.certificate(sync.remote_event_id, request);
    const installed = await this.lan.identity.install({ cert: issued.certificate, key, issuer: issued.authority }, names);
    this.logger.info({ sync_id: sync.id, authority: installed.authorityFingerprint }, "this laptop's LAN certificate is now issued by its upstream's authority");
  }
}
