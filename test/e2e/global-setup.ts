import { buildWhenStale } from '../helpers/built-app';

/** The server serves out/renderer and the LAN specs start out/main/serve.js: built first when stale. */
export default function globalSetup(): void {
  buildWhenStale();
}
