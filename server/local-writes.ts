/**
 * Tells whoever listens that a request changed an event here (a scan, an undo, a walk-in, a
 * guest edit): the sync follower then pushes it at once instead of at its next tick. A hint
 * only: the follower's timer still carries every change, the command line's included.
 */
export class LocalWrites {
  private readonly listeners = new Set<(eventId: number) => void>();

  noteWrite(eventId: number): void {
    for (const listener of this.listeners) listener(eventId);
  }

  onWrite(listener: (eventId: number) => void): void {
    this.listeners.add(listener);
  }
}
