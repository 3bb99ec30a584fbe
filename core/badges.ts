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

/**
 * Badges in one PDF, whatever the selection: a larger one is refused (400) and printed in
 * parts (`limit`, or guest_ids a part at a time), so no request holds the badge worker long.
 */
export const MAX_BADGES_PER_PDF = 500;

/** Guests one request may name by id. */
export const MAX_BADGE_IDS = MAX_BADGES_PER_PDF;

const count = (n: number) => n.toLocaleString('en');

export const BADGE_MSG = {
  invalidSize: `Invalid size; valid: ${BADGE_SIZES.join(', ')}`,
  oneSelection: 'Send guest_ids, or registration_type and/or not_printed=true.',
  tooManyIds: `Ensure this field has no more than ${MAX_BADGE_IDS} elements.`,
  invalidIds: 'Send guest ids as comma-separated integers.',
  notGuestsOfEvent: (ids: number[]) => `Not guests of this event: ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ', ...' : ''}.`,
  noGuestToPrint: 'No guest to print a badge for.',
  selectionTooLarge: (guests: number) =>
    `This selection has ${count(guests)} guests; one PDF holds at most ${count(MAX_BADGES_PER_PDF)} badges. Add limit=${MAX_BADGES_PER_PDF} to print them a part at a time (with not_printed=true each run prints the next part), or send guest_ids in parts.`,
  invalidLimit: `Ensure this value is between 1 and ${MAX_BADGES_PER_PDF}.`,
  busyCaller: (running: number, waiting: number) =>
    `Too many badge PDFs at once from this key or user (${running} printing, ${waiting} waiting); wait for them to finish, then print again.`,
  busyAll: (running: number, waiting: number) => `Badge printing is busy (${running} printing, ${waiting} waiting); try again in a few seconds.`,
  notDrawn: 'These badges could not be drawn: the badge printer stopped on them twice. Print the other guests apart, or try again.',
} as const;
