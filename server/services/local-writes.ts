/**
 * Tells whoever listens that a request changed an event here (a scan, an undo, a walk-in, a
 * guest edit): the sync follower then pushes it at once instead of at its next tick. A hint
 * only: the follower's timer still carries every change, the command line's included.
 */
export class LocalWrites {
  private readonly listeners = new Set<(eventId: number) => void>();
  private readonly unfollowListeners = new Set<(eventId: number) => Promise<void>>();
  private lastWriteAt = Number.NEGATIVE_INFINITY;

  /** `activeMs`: how recent a write means a door at work (config doorActiveMs, DOORLIST_DOOR_ACTIVE_MS). */
  constructor(
    private readonly activeMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  noteWrite(eventId: number): void {
    this.lastWriteAt = this.now();
    for (const listener of this.listeners) listener(eventId);
  }

  /**
   * Whether a request wrote to an event here in the last `activeMs`: a door at work, whose
   * scans an import must not keep waiting (ImportOptions.doorActive). Requests to this
   * process only: another server process on the same SQLite file is not seen.
   */
  doorActive(): boolean {
    return this.now() - this.lastWriteAt < this.activeMs;
  }

  onWrite(listener: (eventId: number) => void): void {
    this.listeners.add(listener);
  }

  /** An event here is no longer followed: resolves once nothing more of it will be pushed (the follower's cycle under way has ended). */
  async noteUnfollow(eventId: number): Promise<void> {
    await Promise.all([...this.unfollowListeners].map((listener) => listener(eventId)));
  }

  onUnfollow(listener: (eventId: number) => Promise<void>): void {
    this.unfollowListeners.add(listener);
  }
}
