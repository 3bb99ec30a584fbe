import { MSG } from '../../core/messages';
import { UpstreamError } from './upstream-error';

/**
 * What an exchange with an upstream may take, whatever the upstream does (config: the
 * DOORLIST_SYNC_* settings; tests set them small). Past any of these the exchange is given up
 * as `offline`, so a follower's cycle is abandoned and the next one starts afresh.
 */
export interface UpstreamTiming {
  /** One exchange whole: connecting, sending, the upstream's work, its whole answer. */
  deadlineMs: number;
  /** While bytes are due (a body going up, an answer coming down), at least this many a second... */
  minBytesPerSecond: number;
  /** ...measured over each window of this length. */
  rateWindowMs: number;
  /** No answer for this long: the sync shows offline, while the request may still finish. */
  silentMs: number;
  /** Nothing at all for this long (the upstream at work, before it answers): given up. */
  idleMs: number;
}

export const DEFAULT_TIMING: UpstreamTiming = {
  deadlineMs: 10 * 60_000,
  minBytesPerSecond: 4096,
  rateWindowMs: 4000,
  silentMs: 5000,
  idleMs: 30_000,
};

export interface ClockOptions {
  /** Aborts whatever is in flight (a server shutting down, an unfollow). */
  stop?: AbortSignal;
  /** Called once an exchange has waited `silentMs` with no byte from the upstream. */
  onSilent?: () => void;
}

/**
 * One exchange's clock. Its `signal` aborts on the caller's stop, at the deadline, after
 * idleMs without a byte, or when, while bytes are due, a window passes with fewer than the
 * minimum rate: every byte resets the silence, but a trickle is still too slow.
 */
export class ExchangeClock {
  private readonly given = new AbortController();
  readonly signal: AbortSignal;
  private readonly deadline: NodeJS.Timeout;
  private silentTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private rateTimer: NodeJS.Timeout | undefined;
  private windowBytes = 0;
  /** Once ended, late bytes (a socket's last data) arm nothing again. */
  private ended = false;

  constructor(
    private readonly timing: UpstreamTiming,
    private readonly options: ClockOptions = {},
  ) {
    this.signal = options.stop ? AbortSignal.any([options.stop, this.given.signal]) : this.given.signal;
    this.deadline = setTimeout(() => this.giveUp(MSG.syncTooLong(Math.round(timing.deadlineMs / 1000))), timing.deadlineMs);
    this.progress(0);
  }

  /** `bytes` went up or came down. */
  progress(bytes: number): void {
    if (this.ended) return;
    this.windowBytes += bytes;
    clearTimeout(this.silentTimer);
    clearTimeout(this.idleTimer);
    const { onSilent } = this.options;
    if (onSilent) this.silentTimer = setTimeout(onSilent, this.timing.silentMs);
    this.idleTimer = setTimeout(() => this.giveUp(MSG.syncUnreachable(`no answer for ${this.timing.idleMs / 1000} s`)), this.timing.idleMs);
  }

  /** Bytes are due from now on (a body to send, an answer started), or no longer (the upstream at work). */
  due(flowing: boolean): void {
    if (this.ended || flowing === (this.rateTimer !== undefined)) return;
    clearInterval(this.rateTimer);
    this.rateTimer = undefined;
    this.windowBytes = 0;
    if (!flowing) return;
    const { minBytesPerSecond, rateWindowMs } = this.timing;
    this.rateTimer = setInterval(() => {
      if (this.windowBytes < (minBytesPerSecond * rateWindowMs) / 1000) this.giveUp(MSG.syncTooSlow(minBytesPerSecond));
      this.windowBytes = 0;
    }, rateWindowMs);
  }

  end(): void {
    this.ended = true;
    clearTimeout(this.deadline);
    clearTimeout(this.silentTimer);
    clearTimeout(this.idleTimer);
    clearInterval(this.rateTimer);
    this.rateTimer = undefined;
  }

  /** Any failure as an UpstreamError naming its cause when the clock gave up; a stop stays what it was. */
  explain(err: unknown): unknown {
    if (err instanceof UpstreamError) return err;
    if (this.given.signal.aborted) return this.given.signal.reason;
    return err;
  }

  get stopped(): boolean {
    return this.options.stop?.aborted ?? false;
  }

  private giveUp(message: string): void {
    this.end();
    if (!this.given.signal.aborted) this.given.abort(new UpstreamError('offline', message));
  }
}
