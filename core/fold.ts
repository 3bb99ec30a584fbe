/**
 * Text as search compares it (DESIGN "Check-in": search): Unicode decomposition (NFD) with the
 * combining marks removed, then lower case, then the letters of their own that have no marks to
 * remove spelled as a keyboard without them spells them (`ø` o, `æ` ae, `ß` ss, `ł` l, ...), so
 * `muller` finds Müller and `soren` finds Søren. Shared by the server's search index, the door's
 * offline copy and (through the server) the console, so all three find the same guests.
 */
const MARKS = /\p{M}+/gu;
// Plain ASCII has nothing to decompose: the common case skips normalize().
const NOT_ASCII = /[^\x00-\x7f]/;

/**
 * Lower-case letters of their own and their plain spelling; upper case reaches them through
 * toLowerCase (Ø ø, Æ æ, Œ œ, ẞ ß, Ł ł, Đ đ, Þ þ), and İ loses its dot as a mark. `ð` is not in
 * DESIGN's list; it is spelled d as Icelandic writes it without the letter, beside `þ` th.
 */
export const OWN_LETTERS: Readonly<Record<string, string>> = Object.freeze({
  ø: 'o',
  æ: 'ae',
  œ: 'oe',
  ß: 'ss',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
});

const OWN_LETTER_CLASS = `[${Object.keys(OWN_LETTERS).join('')}]`;
const OWN_LETTER = new RegExp(OWN_LETTER_CLASS, 'gu');
const HAS_OWN_LETTER = new RegExp(OWN_LETTER_CLASS, 'u');

export function foldText(text: string): string {
  if (!NOT_ASCII.test(text)) return text.toLowerCase();
  return text
    .normalize('NFD')
    .replace(MARKS, '')
    .toLowerCase()
    .replace(OWN_LETTER, (letter) => OWN_LETTERS[letter]);
}

/** Whether folding spells a letter of the text differently than marks and case alone would. */
export function hasOwnLetters(text: string): boolean {
  return NOT_ASCII.test(text) && HAS_OWN_LETTER.test(text.toLowerCase());
}
