import type { Db } from '../../db/knex';
import type { EventRow } from '../../db/repositories/events';
import { badgeGuestsByIds, badgeGuestsPage, countBadgeGuests, idsNotInEvent, registrationTypeOfEvent, type BadgeGuest } from '../../db/repositories/badge-prints';
import { chunks } from '../../db/bulk';
import { ValidationError } from '../../core/errors';
import type { BadgesSelectionInput } from '../schemas/badges';
import { BADGE_MSG, MAX_BADGES_PER_PDF } from '../../core/badges';
import { MSG } from '../../core/messages';

// Guests read (and prints recorded) a page at a time while the PDF streams.
export const BADGE_PAGE = 100;

/** The first page of guests, already read, and the pages after it, read as the sheet asks. */
export interface BadgePages {
  first: BadgeGuest[];
  rest: () => AsyncIterable<BadgeGuest[]>;
}

/**
 * The guests a selection names, page by page: its guest_ids, or a registration type and/or the
 * guests not printed yet, the first `limit` of them. Ids that are not the event's, a type it
 * does not have, or more guests than a PDF holds (MAX_BADGES_PER_PDF) are refused (400)
 * before anything is sent.
 */
export async function badgeSelection(db: Db, event: EventRow, selection: BadgesSelectionInput): Promise<BadgePages> {
  if (selection.guest_ids !== undefined) {
    const missing = await idsNotInEvent(db, event.id, selection.guest_ids);
    if (missing.length > 0) throw ValidationError.field('guest_ids', BADGE_MSG.notGuestsOfEvent(missing));
    const [head, ...tail] = chunks(selection.guest_ids.slice(0, selection.limit), BADGE_PAGE);
    return {
      first: await badgeGuestsByIds(db, event.id, head),
      rest: async function* () {
        for (const ids of tail) yield await badgeGuestsByIds(db, event.id, ids);
      },
    };
  }
  const filter = { registrationTypeId: selection.registration_type, notPrinted: selection.not_printed };
  const field = filter.registrationTypeId !== undefined ? 'registration_type' : 'not_printed';
  if (filter.registrationTypeId !== undefined && !(await registrationTypeOfEvent(db, event.id, filter.registrationTypeId))) {
    throw ValidationError.field('registration_type', MSG.registrationTypeNotFound);
  }
  if (selection.limit === undefined) {
    const guests = await countBadgeGuests(db, event.id, filter);
    if (guests > MAX_BADGES_PER_PDF) throw ValidationError.field(field, BADGE_MSG.selectionTooLarge(guests));
  }
  const total = selection.limit ?? MAX_BADGES_PER_PDF;
  const first = await badgeGuestsPage(db, event.id, filter, 0, Math.min(BADGE_PAGE, total));
  return {
    first,
    rest: async function* () {
      // Pages after the last id printed: a guest printed meanwhile is never printed twice.
      let left = total - first.length;
      for (let last = first.at(-1)?.id; last !== undefined && left > 0 && first.length === BADGE_PAGE; ) {
        const page = await badgeGuestsPage(db, event.id, filter, last, Math.min(BADGE_PAGE, left));
        if (page.length === 0) return;
        yield page;
        left -= page.length;
        if (page.length < BADGE_PAGE) return;
        last = page.at(-1)!.id;
      }
    },
  };
}
