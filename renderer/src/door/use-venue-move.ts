import { useRef, useState } from 'react';
import { apiRequest, OfflineError, type Api, type VenueMove } from '../api';
import { useInterval } from './use-live-stats';

/** What the screen keeps of its venue while its laptop answers: the door pass and where the others are. */
export interface VenueKnown {
  pass: string;
  expires_at: string;
  epoch: number;
  laptops: { name: string; url: string; fingerprint: string; event_id: number }[];
}

/** How often the screen asks its laptop, and how long that laptop may be silent before the screen looks for the venue's upstream. */
export const VENUE_PROBE_MS = 3000;
export const VENUE_MOVE_AFTER_MS = 10_000;
/** A fresh pass and list this often while the laptop answers (a laptop that joined the venue later is known too). */
const PASS_EVERY_MS = 30_000;
const PROBE_TIMEOUT_MS = 2500;

const storeKey = (eventId: number) => `doorlist.venue.${eventId}`;

function stored(eventId: number): VenueKnown | undefined {
  try {
    const known = JSON.parse(localStorage.getItem(storeKey(eventId)) ?? 'null') as VenueKnown | null;
    return known && typeof known.pass === 'string' && Array.isArray(known.laptops) ? known : undefined;
  } catch {
    return undefined;
  }
}

/** The laptop of the venue that answers as its upstream at the highest epoch, at or above the one known. */
async function findUpstream(known: VenueKnown, eventId: number): Promise<VenueMove | undefined> {
  const answers = await Promise.all(
    known.laptops.map(async (laptop) => {
      const answer = await apiRequest<{ part: string; epoch: number }>(known.pass, 'GET', `/events/${laptop.event_id}/sync/venue`, undefined, { base: laptop.url, timeoutMs: PROBE_TIMEOUT_MS }).catch(() => undefined);
      return answer?.status === 200 && answer.body.part === 'upstream' && answer.body.epoch >= known.epoch ? { laptop, epoch: answer.body.epoch } : undefined;
    }),
  );
  const best = answers.reduce<(typeof answers)[number]>((a, b) => (b && (!a || b.epoch > a.epoch) ? b : a), undefined);
  return best && { name: best.laptop.name, base: best.laptop.url, pass: known.pass, fromEventId: eventId, toEventId: best.laptop.event_id };
}

/**
 * A door screen whose laptop stops answering goes on at the venue's current upstream by itself
 * (DESIGN "A venue that outlives its box-office laptop"). While its laptop answers it keeps a
 * door pass and the venue's laptops (in this browser, through a reload); once the laptop has
 * been silent for VENUE_MOVE_AFTER_MS it asks those laptops, and the one that answers as the
 * upstream at the highest epoch takes the event's requests from then on (Api.moveTo): the
 * queued scans go there by uid, once. Answers the laptop the screen moved to, if any.
 */
export function useVenueMove(api: Api, eventId: number): VenueMove | undefined {
  const [moved, setMoved] = useState<VenueMove | undefined>(api.moved);
  const silentSince = useRef<number | undefined>(undefined);
  const passAt = useRef(0);
  const busy = useRef(false);

  useInterval(() => {
    if (busy.current) return;
    const passDue = !api.moved && Date.now() - passAt.current >= PASS_EVERY_MS;
    // An event in no venue costs one ask every PASS_EVERY_MS, nothing more.
    if (!stored(eventId) && !api.moved && !passDue) return;
    busy.current = true;
    void (async () => {
      try {
        if (passDue) {
          passAt.current = Date.now();
          const answer = await api.request<VenueKnown>('POST', `/events/${eventId}/sync/door_pass`, undefined, { timeoutMs: PROBE_TIMEOUT_MS });
          if (answer.status === 200) localStorage.setItem(storeKey(eventId), JSON.stringify(answer.body));
          else localStorage.removeItem(storeKey(eventId));
        } else {
          // Whoever the screen talks to now (its laptop, or the one it moved to) is asked.
          await api.request('GET', `/events/${eventId}/sync/venue`, undefined, { timeoutMs: PROBE_TIMEOUT_MS });
        }
        silentSince.current = undefined;
      } catch (err) {
        if (!(err instanceof OfflineError)) return;
        const now = Date.now();
        silentSince.current ??= now;
        const known = stored(eventId);
        if (!known || now - silentSince.current < VENUE_MOVE_AFTER_MS) return;
        const next = await findUpstream(known, eventId);
        if (!next || next.base === api.moved?.base) return;
        api.moveTo(next);
        silentSince.current = undefined;
        setMoved(next);
      } finally {
        busy.current = false;
      }
    })();
  }, VENUE_PROBE_MS);

  return moved;
}
