import { foldText } from './fold';

/**
 * What a guest is found by: the terms worked out from its fields, and the words of a search.
 * Pure, so the server's search index (db/search-index.ts) and the door's offline copy
 * (renderer/src/guest-copy.ts) find the same guests for the same words.
 */

const TERM_MAX = 255;
const WORD_SPLIT = /\s+/;
const PART_SPLIT = /[@.\-_'+,;:/()]+/;
const PART_CHAR = /[@.\-_'+,;:/()]/;

/** What a guest is searched by. */
export interface SearchableFields {
  first_name?: string | null;
  last_name?: string | null;
  email?: string | null;
  company?: string | null;
  nfc_tag?: string | null;
  barcode?: string | null;
}

/**
 * The folded words (core/fold.ts: case and accents ignored) a search can prefix-match: each
 * word of the name, e-mail and company, the e-mail's parts (split on @ . - _), and barcode and
 * NFC tag whole. Codes fold too, so the search words (folded) meet them; for the ASCII codes
 * Doorlist draws and tags carry that is lower case only. `fold` is another folding only for
 * migration 20261128000000's way back to lower-cased terms.
 */
export function searchTerms(guest: SearchableFields, fold: (text: string) => string = foldText): string[] {
  // An array sorted once rather than a Set: this runs for every guest of an import.
  const terms: string[] = [];
  const add = (t: string) => {
    if (t) terms.push(t.length > TERM_MAX ? t.slice(0, TERM_MAX) : t);
  };
  for (const text of [guest.first_name, guest.last_name, guest.email, guest.company]) {
    if (!text) continue;
    for (const word of fold(text).split(WORD_SPLIT)) {
      add(word);
      if (PART_CHAR.test(word)) for (const part of word.split(PART_SPLIT)) add(part);
    }
  }
  for (const code of [guest.barcode, guest.nfc_tag]) if (code) add(fold(code).trim());
  // A term that is a prefix of another (or the same again) adds no match the longer one lacks.
  terms.sort();
  return terms.filter((t, i) => i === terms.length - 1 || !terms[i + 1].startsWith(t));
}

/** Query words, folded as terms are: what each must prefix-match in some term of a guest. */
export function searchWords(query: string): string[] {
  return [...new Set(foldText(query).split(WORD_SPLIT).filter(Boolean))].slice(0, 8).map((w) => w.slice(0, TERM_MAX));
}
