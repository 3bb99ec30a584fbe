/**
 * Text as search compares it (DESIGN "Check-in": search): Unicode decomposition (NFD) with the
 * combining marks removed, then lower case, so `muller`, `MÜLLER` and `Müller` are one word.
 * Shared by the server's search index and the door's offline copy, so both find the same guests.
 */
const MARKS = /\p{M}+/gu;
// Plain ASCII has nothing to decompose: the common case skips normalize().
const NOT_ASCII = /[^\x00-\x7f]/;

export function foldText(text: string): string {
  return (NOT_ASCII.test(text) ? text.normalize('NFD').replace(MARKS, '') : text).toLowerCase();
}
