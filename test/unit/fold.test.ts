import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldText, hasOwnLetters, OWN_LETTERS } from '../../core/fold';
import { searchTerms, searchWords } from '../../core/search-terms';

/** Search's folding (core/fold.ts, DESIGN "Check-in": search), which the index, the door's copy and the console share. */
describe('foldText', () => {
  // Every letter of its own DESIGN names, in both cases, and its plain spelling.
  const ownLetters: [string, string][] = [
    ['ø', 'o'], ['Ø', 'o'],
    ['æ', 'ae'], ['Æ', 'ae'],
    ['œ', 'oe'], ['Œ', 'oe'],
    ['ß', 'ss'], ['ẞ', 'ss'],
    ['ł', 'l'], ['Ł', 'l'],
    ['đ', 'd'], ['Đ', 'd'],
    ['þ', 'th'], ['Þ', 'th'],
    ['ı', 'i'], ['İ', 'i'],
    ['ð', 'd'], ['Ð', 'd'],
  ];
  for (const [letter, plain] of ownLetters) {
    it(`spells ${letter} (U+${letter.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}) as ${plain}`, () => {
      assert.equal(foldText(letter), plain);
    });
  }

  it('has a plain spelling for each letter of its table, and the table only plain ASCII', () => {
    for (const [letter, plain] of Object.entries(OWN_LETTERS)) {
      assert.match(plain, /^[a-z]+$/, letter);
      assert.equal(foldText(letter), plain);
    }
  });

  const words: [string, string][] = [
    ['Søren', 'soren'],
    ['Łukasz García', 'lukasz garcia'],
    ['Ødegård', 'odegard'],
    ['Wałęsa', 'walesa'],
    ['Straße', 'strasse'],
    ['STRAẞE', 'strasse'],
    ['Æsir', 'aesir'],
    ['Cœur', 'coeur'],
    ['Đorđević', 'dordevic'],
    ['Þórunn', 'thorunn'],
    ['Işık', 'isik'],
    ['İstanbul', 'istanbul'],
    ['Müller', 'muller'],
    ['MÜLLER', 'muller'],
    ['François', 'francois'],
    ['Ann-Marie O\'Neil', 'ann-marie o\'neil'],
    ['', ''],
    // Decomposed input (marks as their own code points) folds as the composed one does.
    ['Mu\u0308ller', 'muller'],
  ];
  for (const [text, folded] of words) {
    it(`folds ${JSON.stringify(text)} to ${JSON.stringify(folded)}`, () => {
      assert.equal(foldText(text), folded);
    });
  }

  it('leaves what it cannot spell plainly as it is, lower-cased', () => {
    assert.equal(foldText('Иван 王'), 'иван 王');
  });

  it('tells which texts hold letters of their own (what migration 20261201000000 re-files)', () => {
    for (const [letter] of ownLetters) assert.equal(hasOwnLetters(`x${letter}x`), letter !== 'İ', letter);
    assert.equal(hasOwnLetters('Müller'), false);
    assert.equal(hasOwnLetters('plain'), false);
  });
});

describe('search terms and words fold alike', () => {
  const table: [fields: Parameters<typeof searchTerms>[0], query: string][] = [
    [{ first_name: 'Søren', last_name: 'Kierkegaard' }, 'soren'],
    [{ first_name: 'Łukasz', last_name: 'García' }, 'lukasz garcia'],
    [{ first_name: 'Anne', last_name: 'Ødegård' }, 'odegard'],
    [{ first_name: 'Lech', last_name: 'Wałęsa' }, 'walesa'],
    [{ first_name: 'Lena', last_name: 'Weiß', company: 'Großhandel' }, 'weiss gross'],
    [{ first_name: 'Søren', last_name: 'Møller' }, 'SØREN'],
    [{ first_name: 'Jon', email: 'jon@ødegård.no' }, 'odegard'],
  ];
  for (const [fields, query] of table) {
    it(`${JSON.stringify(query)} prefixes terms of ${fields.first_name} ${fields.last_name ?? ''}`, () => {
      const terms = searchTerms(fields);
      for (const word of searchWords(query)) assert.ok(terms.some((t) => t.startsWith(word)), `${word} in ${terms.join(' ')}`);
    });
  }
});
