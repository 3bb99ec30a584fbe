/**
 * Badge label sizes (DESIGN "Badges"), shared by the server, which lays badges out on them,
 * and the console, which offers them. Page sizes are in PDF points (1/72 in).
 */
export const BADGE_SIZES = ['62x100mm', '4x3in', 'A6'] as const;

export type BadgeSize = (typeof BADGE_SIZES)[number];

export const DEFAULT_BADGE_SIZE: BadgeSize = 'A6';

const MM = 72 / 25.4;

/** Width and height of each label: a 62 mm roll printed 100 mm long, a 4x3 in card, A6 portrait. */
export const BADGE_PAGE_POINTS: Record<BadgeSize, readonly [number, number]> = {
  '62x100mm': [62 * MM, 100 * MM],
  '4x3in': [4 * 72, 3 * 72],
  A6: [105 * MM, 148 * MM],
};

/** Guests one request may name by id; a larger selection is printed in parts. */
export const MAX_BADGE_IDS = 1000;

export const BADGE_MSG = {
  invalidSize: `Invalid size; valid: ${BADGE_SIZES.join(', ')}`,
  oneSelection: 'Send guest_ids, or registration_type and/or not_printed=true.',
  tooManyIds: `Ensure this field has no more than ${MAX_BADGE_IDS} elements.`,
  invalidIds: 'Send guest ids as comma-separated integers.',
  notGuestsOfEvent: (ids: number[]) => `Not guests of this event: ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ', ...' : ''}.`,
  noGuestToPrint: 'No guest to print a badge for.',
} as const;
