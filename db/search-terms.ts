import { searchTerms, type SearchableFields } from '../core/search-terms';

/**
 * A batch's search terms, for filing (db/search-index.ts). The rule for one guest is core's,
 * shared with the door's offline copy; it is named here too, where migrations import it.
 */
export { searchTerms, searchWords, type SearchableFields } from '../core/search-terms';

/** A batch's terms, guest by guest: `terms[k]` belong to the batch's k-th guest. */
export type BatchTerms = readonly (readonly string[])[];

/**
 * A batch's search terms, guest by guest; apart from the filing, so a bulk path can work them
 * out while the database inserts the guests (db/bulk's `alongside`).
 */
export function batchSearchTerms(guests: readonly SearchableFields[]): BatchTerms {
  return guests.map((guest) => searchTerms(guest));
}

