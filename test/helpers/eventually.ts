/**
 * The one way a test waits: polls `probe` every `everyMs` until it answers something other than
 * undefined, and fails naming `what` once `ms` have gone by. The limit is a guard against a
 * hang, never the thing tested: under load a condition may take longer, so keep it generous.
 */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 20_000, everyMs = 50): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
