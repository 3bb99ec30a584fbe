import type { ScanResult } from '../types';

/** The same code from this station within this time is the reader firing twice: one answer. */
export const REPEAT_GUARD_MS = 3000;

/** A code's latest scan: when, and its answer once it is here. */
export interface GuardedScan {
  at: number;
  result?: ScanResult;
}

/**
 * Remembers each code's latest scan for REPEAT_GUARD_MS, so a reader firing twice gets the
 * first answer again instead of a second scan. The key holds what makes a scan new on purpose
 * (the direction, the session).
 */
export class RepeatGuard {
  private seen = new Map<string, GuardedScan>();

  /** The earlier scan of `key` still within the guard's time, if any. */
  repeatOf(key: string, now: number): GuardedScan | undefined {
    const seen = this.seen.get(key);
    return seen && now - seen.at < REPEAT_GUARD_MS ? seen : undefined;
  }

  /** Guards `key` from `now` on; the entry returned takes the answer once it is here. */
  start(key: string, now: number): GuardedScan {
    for (const [old, value] of this.seen) if (now - value.at >= REPEAT_GUARD_MS) this.seen.delete(old);
    const entry: GuardedScan = { at: now };
    this.seen.set(key, entry);
    return entry;
  }

  /** After an undo the guest may be scanned again at once: a new entry, not a repeat. */
  clear(): void {
    this.seen.clear();
  }
}
