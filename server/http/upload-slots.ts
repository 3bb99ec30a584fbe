/**
 * Uploads (CSV imports, event files, a follower's changes) one server takes at once. Each is
 * spooled to disk or staged in the database as it arrives: without a bound, a burst of them
 * filled the temporary folder and held the writer in turn. Two pools, so a follower's push
 * never queues behind imports, and a bound per caller in each, so one key cannot hold a pool:
 * past the caller's bound the answer is 429, past the pool's 503, both at once.
 */
export const MAX_CONCURRENT_UPLOADS = 3;
/** A follower's changes (`POST /events/:id/sync/changes`): followers of every group share these. */
export const MAX_CONCURRENT_SYNC_PUSHES = 6;
/** Uploads of one key or user at once: imports one at a time; pushes two (one key may follow two events). */
export const UPLOADS_PER_CALLER = { import: 1, sync: 2 } as const;

/** Seconds a refused upload is told to wait (Retry-After). */
export const UPLOAD_RETRY_AFTER_S = 5;

export type UploadPool = keyof typeof UPLOADS_PER_CALLER;

export type SlotAnswer = { release: () => void } | { refused: 'caller' | 'pool'; limit: number };

class Pool {
  private taken = 0;
  private readonly byCaller = new Map<string, number>();

  constructor(
    readonly limit: number,
    readonly perCaller: number,
  ) {}

  take(caller: string): SlotAnswer {
    const mine = this.byCaller.get(caller) ?? 0;
    if (mine >= this.perCaller) return { refused: 'caller', limit: this.perCaller };
    if (this.taken >= this.limit) return { refused: 'pool', limit: this.limit };
    this.taken++;
    this.byCaller.set(caller, mine + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.taken--;
      const left = (this.byCaller.get(caller) ?? 1) - 1;
      if (left > 0) this.byCaller.set(caller, left);
      else this.byCaller.delete(caller);
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

  /** A slot of `pool` for `caller` (kind:id) and the function that gives it back, or why not. */
  take(pool: UploadPool, caller: string): SlotAnswer {
    return this.pools[pool].take(caller);
  }
}
