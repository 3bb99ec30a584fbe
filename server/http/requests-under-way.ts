/**
 * Route handlers still running. A server that stops drops its sockets at once but lets these
 * finish before its database closes: a handler left mid-query on a closed pool would wait out
 * the pool's acquire timeout (60 s) and hold the process open.
 */
export class RequestsUnderWay {
  private running = 0;
  private onIdle: Array<() => void> = [];

  async run<T>(work: () => Promise<T>): Promise<T> {
    this.running++;
    try {
      return await work();
    } finally {
      if (--this.running === 0) for (const resolve of this.onIdle.splice(0)) resolve();
    }
  }

  /** When none runs, or after `graceMs`: a merge applies in journaled turns, so a stop in its middle is undone at the next start. */
  settled(graceMs: number): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      timer.unref();
      this.onIdle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
