/**
 * How many badge PDFs are drawn at once, and how many wait: a bounded number running in all
 * and per caller (an API key or a user), a bounded queue in all and per caller, first come
 * first served among those allowed to start. Past a bound a request is refused at once
 * (`BadgeSlotRefusal`): the caller's own bound answers 429, the whole queue 503.
 */
export interface BadgeSlotLimits {
  running: number;
  runningPerCaller: number;
  waiting: number;
  waitingPerCaller: number;
}

export const BADGE_SLOT_LIMITS: BadgeSlotLimits = { running: 3, runningPerCaller: 2, waiting: 24, waitingPerCaller: 6 };

/** Seconds a refused badge request is told to wait (Retry-After). */
export const BADGE_RETRY_AFTER_S = 2;

export class BadgeSlotRefusal extends Error {
  constructor(readonly reason: 'caller' | 'all') {
    super(reason === 'caller' ? 'this caller has too many badge PDFs waiting' : 'every badge slot and queue place is taken');
  }
}

interface Waiter {
  caller: string;
  start: (release: () => void) => void;
}

export class BadgeSlots {
  private readonly running = new Map<string, number>();
  private runningCount = 0;
  private readonly queue: Waiter[] = [];

  constructor(readonly limits: BadgeSlotLimits = BADGE_SLOT_LIMITS) {}

  /**
   * A slot for `caller`: the function that gives it back, at once or once the slot is free.
   * Throws BadgeSlotRefusal when the caller's or the whole queue is full; `signal` (the
   * client gone) takes a waiting request out of the queue.
   */
  take(caller: string, signal?: AbortSignal): Promise<() => void> {
    if (this.mayStart(caller)) return Promise.resolve(this.start(caller));
    const waitingForCaller = this.queue.filter((w) => w.caller === caller).length;
    if (waitingForCaller >= this.limits.waitingPerCaller) throw new BadgeSlotRefusal('caller');
    if (this.queue.length >= this.limits.waiting) throw new BadgeSlotRefusal('all');
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { caller, start: resolve };
      this.queue.push(waiter);
      signal?.addEventListener('abort', () => {
        const at = this.queue.indexOf(waiter);
        if (at === -1) return;
        this.queue.splice(at, 1);
        reject(signal.reason);
      });
    });
  }

  /** Requests drawing now and waiting, in all and for one caller. */
  counts(caller?: string): { running: number; waiting: number } {
    if (caller === undefined) return { running: this.runningCount, waiting: this.queue.length };
    return { running: this.running.get(caller) ?? 0, waiting: this.queue.filter((w) => w.caller === caller).length };
  }

  private mayStart(caller: string): boolean {
    return this.runningCount < this.limits.running && (this.running.get(caller) ?? 0) < this.limits.runningPerCaller;
  }

  private start(caller: string): () => void {
    this.runningCount++;
    this.running.set(caller, (this.running.get(caller) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.runningCount--;
      const left = this.running.get(caller)! - 1;
      if (left === 0) this.running.delete(caller);
      else this.running.set(caller, left);
      this.startNext();
    };
  }

  /** The first waiter allowed to start (its caller below its own bound) starts. */
  private startNext(): void {
    for (let i = 0; i < this.queue.length && this.runningCount < this.limits.running; ) {
      const waiter = this.queue[i];
      if (!this.mayStart(waiter.caller)) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      waiter.start(this.start(waiter.caller));
    }
  }
}
