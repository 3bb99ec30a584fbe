import v8 from 'node:v8';

/**
 * How far V8 lets the old generation grow past what its last full collection kept before it
 * collects again. V8's own factor, on a machine with this much memory, goes up to 4: under 32
 * doors scanning, the old generation reached about 70 MB for about 25 MB live and the server
 * peaked at 180-185 MB. At 30% it peaked at 143-147 MB; event-file imports took as long and
 * CSV imports about as long for up to a tenth more CPU (`npm run bench`, the two policies in turn).
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
