/** A track's update, checked inside its write transaction: the merged record's start is not after its end (core/spans.ts). */
import type { Db } from '../../db/knex';
import type { EventRow } from '../../db/repositories/events';
import { findTrack, updateTrack, type TrackFields } from '../../db/repositories/tracks';
import { writeTransaction } from '../../db/write-transaction';
import { NotFoundError, ValidationError } from '../../core/errors';
import { MSG } from '../../core/messages';
import { spanErrors } from '../../core/spans';

/** Changes the given fields of the event's track (404 when it has none of that id). */
export function changeTrack(db: Db, event: EventRow, trackId: number, fields: Partial<TrackFields>): Promise<void> {
  return writeTransaction(db, async (trx) => {
    const track = await findTrack(trx, event.id, trackId);
    if (!track) throw new NotFoundError(MSG.trackNotFound);
    const outOfOrder = spanErrors('track', fields, track);
    if (Object.keys(outOfOrder).length > 0) throw new ValidationError(outOfOrder);
    await updateTrack(trx, track.id, fields);
  });
}
