/**
 * Uploads (CSV imports, event files, a follower's changes) one server takes at once. Each is
 * spooled to disk or staged in the database as it arrives: without a bound, a burst of them
 * filled the temporary folder and held the writer in turn. One more answers 503 at once.
 */
export const MAX_CONCURRENT_UPLOADS = 3;

/** Seconds a refused upload is told to wait (Retry-After). */
export const UPLOAD_RETRY_AFTER_S = 5;

export class UploadSlots {
  private taken = 0;

  constructor(readonly limit = MAX_CONCURRENT_UPLOADS) {}

  /** A slot and the function that gives it back, or undefined when every slot is taken. */
  take(): (() => void) | undefined {
    if (this.taken >= this.limit) return undefined;
    this.taken++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.taken--;
    };
  }
}
