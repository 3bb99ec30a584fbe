import v8 from 'node:v8';

/**
 * How far V8 lets the old generation grow past what its last full collection kept before it
 * collects again. V8's own factor, on a machine with this much memory, goes up to 4, so under
 * 32 doors scanning the old generation holds nearly three times what is live. At 30% the
 * server's peak is about a fifth lower, for up to a tenth more CPU in a CSV import and none in
 * an event-file import (`npm run bench`, run under each policy in turn).
 */
export const HEAP_GROWING_PERCENT = 30;

/**
 * The server process's heap policy, set by each entry (`npm run serve`, the desktop app) before
 * the server starts. Set at run time: V8 reads the flag each time it sets the next limit, and
 * Node and Electron both leave flags settable after start.
 */
export function limitHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
