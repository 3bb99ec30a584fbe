/**
 * Uploads (CSV imports, event files, a follower's changes) one server takes at once. Each is
 * spooled to disk or staged in the database as it arrives: without a bound, a burst of them
 * filled the temporary folder and held the writer in turn. Two pools, so a follower's push
 * never queues behind imports, and a bound per caller in each, so one key cannot hold a pool:
 * past the caller's bound the answer is 429, past the pool's 503, both at once. A small push
 * (a door laptop's few scans, the venue's laptops sharing one key) is bound per caller far
 * higher and waits a moment for the pool instead of being refused.
 */
export const MAX_CONCURRENT_UPLOADS = 3;
/** A follower's changes (`POST /events/:id/sync/changes`): followers of every group share these. */
export const MAX_CONCURRENT_SYNC_PUSHES = 6;
/** Uploads of one key or user at once: imports one at a time; large pushes two (one key may follow two events). */
export const UPLOADS_PER_CALLER = { import: 1, sync: 2 } as const;
/** A push whose declared length is at most this is small: a few hundred scans, gzipped. */
export const SMALL_PUSH_BYTES = 64 * 1024;
/** Small pushes of one key or user at once, waiting included: the venue's laptops (at most 64) on one key. */
export const SMALL_PUSHES_PER_CALLER = 64;
/** Small pushes waiting for the pool, all callers; and how long one waits before its 503. */
export const SMALL_PUSHES_WAITING = 128;
export const SMALL_PUSH_WAIT_MS = 3000;

/** Seconds a refused upload is told to wait (Retry-After). */
export const UPLOAD_RETRY_AFTER_S = 5;

export type UploadPool = keyof typeof UPLOADS_PER_CALLER;

export type SlotAnswer = { release: () => void } | { refused: 'caller' | 'pool'; limit: number };

interface Waiter {
  caller: string;
  grant: (answer: SlotAnswer) => void;
  timer: NodeJS.Timeout;
}

class Pool {
  private taken = 0;
  private readonly byCaller = new Map<string, number>();
  /** Small uploads held or waiting, by caller: a bound of their own. */
  private readonly smallByCaller = new Map<string, number>();
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly limit: number,
    readonly perCaller: number,
  ) {}

  take(caller: string): SlotAnswer {
    const mine = this.byCaller.get(caller) ?? 0;
    if (mine >= this.perCaller) return { refused: 'caller', limit: this.perCaller };
    if (this.taken >= this.limit) return { refused: 'pool', limit: this.limit };
    this.byCaller.set(caller, mine + 1);
    return this.grant(() => {
      const left = (this.byCaller.get(caller) ?? 1) - 1;
      if (left > 0) this.byCaller.set(caller, left);
      else this.byCaller.delete(caller);
    });
  }

  /** A small upload: SMALL_PUSHES_PER_CALLER per caller, and a wait in turn (first come) while the pool is full. */
  takeSmall(caller: string, stop: AbortSignal): Promise<SlotAnswer> {
    const mine = this.smallByCaller.get(caller) ?? 0;
    if (mine >= SMALL_PUSHES_PER_CALLER) return Promise.resolve({ refused: 'caller', limit: SMALL_PUSHES_PER_CALLER });
    if (this.taken < this.limit) return Promise.resolve(this.grantSmall(caller));
    if (this.waiting.length >= SMALL_PUSHES_WAITING || stop.aborted) return Promise.resolve({ refused: 'pool', limit: this.limit });
    this.smallByCaller.set(caller, mine + 1);
    return new Promise((resolve) => {
      const leave = () => {
        const at = this.waiting.indexOf(waiter);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        clearTimeout(waiter.timer);
        stop.removeEventListener('abort', leave);
        this.dropSmall(caller);
        resolve({ refused: 'pool', limit: this.limit });
      };
      const waiter: Waiter = {
        caller,
        timer: setTimeout(leave, SMALL_PUSH_WAIT_MS),
        grant: (answer) => {
          stop.removeEventListener('abort', leave);
          resolve(answer);
        },
      };
      stop.addEventListener('abort', leave, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** A slot for a small upload whose caller's count is already raised (a waiter), or raised now. */
  private grantSmall(caller: string, counted = false): SlotAnswer {
    if (!counted) this.smallByCaller.set(caller, (this.smallByCaller.get(caller) ?? 0) + 1);
    return this.grant(() => this.dropSmall(caller));
  }

  private dropSmall(caller: string): void {
    const left = (this.smallByCaller.get(caller) ?? 1) - 1;
    if (left > 0) this.smallByCaller.set(caller, left);
    else this.smallByCaller.delete(caller);
  }

  private grant(onRelease: () => void): SlotAnswer {
    this.taken++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.taken--;
      onRelease();
      // The slot goes to the small upload that has waited longest.
      const next = this.waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        next.grant(this.grantSmall(next.caller, true));
      }
    };
    return { release };
  }
}

export class UploadSlots {
  private readonly pools: Record<UploadPool, Pool>;

  constructor(limits: { import?: number; sync?: number } = {}) {
    this.pools = {
      import: new Pool(limits.import ?? MAX_CONCURRENT_UPLOADS, UPLOADS_PER_CALLER.import),
      sync: new Pool(limits.sync ?? MAX_CONCURRENT_SYNC_PUSHES, UPLOADS_PER_CALLER.sync),
    };
  }

  /**
   * A slot of `pool` for `caller` (kind:id) and the function that gives it back, or why not.
   * `declaredBytes`: the body's Content-Length (undefined when chunked); a push that small
   * waits its turn for a while (until `stop`) rather than being refused.
   */
  take(pool: UploadPool, caller: string, declaredBytes: number | undefined, stop: AbortSignal): Promise<SlotAnswer> {
    if (pool === 'sync' && declaredBytes !== undefined && declaredBytes <= SMALL_PUSH_BYTES) return this.pools.sync.takeSmall(caller, stop);
    return Promise.resolve(this.pools[pool].take(caller));
  }
}
