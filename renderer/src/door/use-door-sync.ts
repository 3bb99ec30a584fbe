import { useRef, useState } from 'react';
import type { Api } from '../api';
import type { SyncStatus } from '../types';
import { useInterval } from './use-live-stats';

/** The follower runs every second; a poll every 3 s keeps "synced N s ago" honest. */
const SYNC_EVERY_MS = 3000;
const SYNC_TIMEOUT_MS = 2500;
/** Most events are not followed: asked again this rarely, so a door there costs next to nothing. */
const UNFOLLOWED_EVERY_MS = 30_000;

/**
 * The sync state of the event this door scans, when this laptop follows a central Doorlist.
 * Polled on its own timer, one request at a time, with a short timeout; no scan ever awaits it.
 * `undefined` while the event is not followed (the door then shows nothing); the last answer
 * stays while this laptop's server cannot be reached (the connection chip says so).
 */
export function useDoorSync(api: Api, eventId: number): SyncStatus | undefined {
  const [status, setStatus] = useState<{ eventId: number; status?: SyncStatus }>({ eventId });
  const asking = useRef(false);
  const unfollowedAt = useRef<{ eventId: number; at: number } | undefined>(undefined);
  useInterval(() => {
    if (asking.current) return;
    const known = unfollowedAt.current;
    if (known && known.eventId === eventId && Date.now() - known.at < UNFOLLOWED_EVERY_MS) return;
    asking.current = true;
    api
      .request<SyncStatus>('GET', `/events/${eventId}/sync`, undefined, { timeoutMs: SYNC_TIMEOUT_MS })
      .then(
        (answer) => {
          unfollowedAt.current = answer.status === 200 ? undefined : { eventId, at: Date.now() };
          setStatus({ eventId, status: answer.status === 200 ? answer.body : undefined });
        },
        () => undefined,
      )
      .finally(() => {
        asking.current = false;
      });
  }, SYNC_EVERY_MS);
  // An answer about the event scanned before a switch is never shown for the next one.
  return status.eventId === eventId ? status.status : undefined;
}
