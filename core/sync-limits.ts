/**
 * Conflicts, and double admissions, kept per event: enough for staff to read through, and a
 * bound on what an upstream (or a file) can make this laptop store. Past it the first ones stay.
 */
export const FINDINGS_KEPT = 1000;

/**
 * A venue's laptops, as an upstream records them and as any laptop takes a list from another:
 * past this many a new laptop is refused, and a longer list is refused whole.
 */
export const VENUE_MEMBERS_MAX = 64;
/** A station's name and a LAN address, as a venue keeps them. */
export const VENUE_NAME_MAX = 64;
export const VENUE_URL_MAX = 256;
/** An epoch any laptop takes: a venue moves up one per takeover, never near this. */
export const VENUE_EPOCH_MAX = 2 ** 31 - 1;
