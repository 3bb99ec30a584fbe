/**
 * What a guest is found by: the terms worked out from its fields, and the words of a search.
 * Apart from where they are filed (db/search-index.ts), so a migration can work them out too.
 */

/** A batch's terms, guest by guest: `terms[k]` belong to the batch's k-th guest. */
export type BatchTerms = readonly (readonly string[])[];

const TERM_MAX = 255;
const WORD_SPLIT = /\s+/;
const PART_SPLIT = /[@.\-_'+,;:/()]+/;
const PART_CHAR = /[@.\-_'+,;:/()]/;

/** What a guest is searched by. */
export interface SearchableFields {
  first_name?: string;
  last_name?: string;
  email?: string;
  company?: string | null;
  nfc_tag?: string | null;
  barcode?: string | null;
}

/**
 * The lower-cased words a search can prefix-match: each word of the name, e-mail and
 * company, the e-mail's parts (split on @ . - _), and barcode and NFC tag whole.
 */
export function searchTerms(guest: SearchableFields): string[] {
  // An array sorted once rather than a Set: this runs for every guest of an import.
  const terms: string[] = [];
  const add = (t: string) => {
    if (t) terms.push(t.length > TERM_MAX ? t.slice(0, TERM_MAX) : t);
  };
  for (const text of [guest.first_name, guest.last_name, guest.email, guest.company]) {
    if (!text) continue;
    for (const word of text.toLowerCase().split(WORD_SPLIT)) {
      add(word);
      if (PART_CHAR.test(word)) for (const part of word.split(PART_SPLIT)) add(part);
    }
  }
  for (const code of [guest.barcode, guest.nfc_tag]) if (code) add(code.toLowerCase().trim());
  // A term that is a prefix of another (or the same again) adds no match the longer one lacks.
  terms.sort();
  return terms.filter((t, i) => i === terms.length - 1 || !terms[i + 1].startsWith(t));
}

/** Query words: what each must prefix-match in some term of a guest. */
export function searchWords(query: string): string[] {
  return [...new Set(query.toLowerCase().split(WORD_SPLIT).filter(Boolean))].slice(0, 8).map((w) => w.slice(0, TERM_MAX));
}

/**
 * A batch's search terms, guest by guest; apart from the filing, so a bulk path can work them
 * out while the database inserts the guests (db/bulk's `alongside`).
 */
export function batchSearchTerms(guests: readonly SearchableFields[]): BatchTerms {
  return guests.map(searchTerms);
}

