/**
 * A session's create and update, each checked inside its write transaction: the track must be
 * the event's, capacity is set on create only, and the merged record's start is not after its
 * end; and a guest's registration into a session. Routes parse and answer; these decide.
 */
import type { Db, Trx } from '../../db/knex';
import type { EventRow } from '../../db/repositories/events';
import { findSession, insertSession, REGISTRATION_OUTCOME, registerGuestInSession, unregisterGuestFromSession, updateSession } from '../../db/repositories/sessions';
import { findGuest } from '../../db/repositories/guests';
import { withRetries } from '../../db/errors';
import { findTrack } from '../../db/repositories/tracks';
import { writeTransaction } from '../../db/write-transaction';
import { NotFoundError, ValidationError } from '../../core/errors';
import { MSG } from '../../core/messages';
import { spanErrors } from '../../core/spans';
import type { SessionCreateInput, SessionUpdateInput } from '../schemas/sessions';

/** Checked inside the write's transaction, so the track cannot vanish in between. */
async function requireEventTrack(trx: Trx, event: EventRow, trackId: number | null | undefined): Promise<void> {
  if (trackId == null) return;
  if (!(await findTrack(trx, event.id, trackId))) throw ValidationError.field('track_id', MSG.invalidTrackId);
}

/** A new session of the event; its id. */
export function createSession(db: Db, event: EventRow, body: SessionCreateInput): Promise<number> {
  const { tags, ...fields } = body;
  return writeTransaction(db, async (trx) => {
    await requireEventTrack(trx, event, fields.track_id);
    return insertSession(trx, event.id, fields, tags);
  });
}

/** Changes the given fields of the event's session (404 when it has none of that id). */
export function changeSession(db: Db, event: EventRow, sessionId: number, body: SessionUpdateInput): Promise<void> {
  return writeTransaction(db, async (trx) => {
    const session = await findSession(trx, event.id, sessionId);
    if (!session) throw new NotFoundError(MSG.sessionNotFound);
    const { tags, capacity, ...fields } = body;
    if (capacity !== undefined && capacity !== session.capacity) throw ValidationError.field('capacity', MSG.capacityCreateOnly);
    const outOfOrder = spanErrors('session', fields, session);
    if (Object.keys(outOfOrder).length > 0) throw new ValidationError(outOfOrder);
    await requireEventTrack(trx, event, fields.track_id);
    await updateSession(trx, session.id, fields, tags);
  });
}

/**
 * Registers the event's guest into its session, or removes the registration (`attend` false):
 * 404 for the guest, then for the session; the seats are counted under the session's row lock
 * (a full session answers the spec's 400). Repeating the call changes nothing.
 */
export async function setSessionRegistration(db: Db, event: EventRow, guestId: number, sessionId: number, attend: boolean): Promise<void> {
  const guest = await findGuest(db, event.id, guestId);
  if (!guest) throw new NotFoundError(MSG.guestNotFound, 'details');
  const session = await findSession(db, event.id, sessionId);
  if (!session) throw new NotFoundError(MSG.sessionNotFound);
  if (!attend) {
    await writeTransaction(db, (trx) => unregisterGuestFromSession(trx, session.id, guest.id));
    return;
  }
  // The seat count locks the session row; a scan holding the guest's row can meet it in a
  // deadlock on PostgreSQL, and one of the two is then simply run again.
  const outcome = await withRetries(() => writeTransaction(db, (trx) => registerGuestInSession(trx, session, guest.id)));
  if (outcome === REGISTRATION_OUTCOME.full) throw new ValidationError({ details: MSG.sessionFull });
}
