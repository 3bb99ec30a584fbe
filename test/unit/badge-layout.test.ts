import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseCuts, fitHeight, nameCuts, nameTokens } from '../../server/badges/name-lines';
import { loadFont } from '../../server/badges/fonts';
import { MIN_CAP_MM, namePlan } from '../../server/badges/render';
import type { BadgeSize } from '../../core/badges';

// One em a character: widths easy to reckon with.
const chars = (line: string) => [...line].length;

describe('nameTokens', () => {
  it('cuts after spaces and after hyphens, keeping every character', () => {
    const cases: [string, string[]][] = [
      ['Ada', ['Ada']],
      ['Anne-Marie Lefèvre-Dubois', ['Anne-', 'Marie ', 'Lefèvre-', 'Dubois']],
      ['  von  Hohenzollern ', ['von  ', 'Hohenzollern']],
      ['王小明', ['王小明']],
      ['', []],
    ];
    for (const [name, tokens] of cases) assert.deepEqual(nameTokens(name), tokens, name);
  });
});

describe('nameCuts', () => {
  it('answers one cut for each number of lines, balanced, each at the size its widest line allows', () => {
    const cuts = nameCuts('Anne-Marie Lefèvre-Dubois', chars, { width: 100, max: 40, maxLines: 3 });
    assert.deepEqual(
      cuts.map((c) => c.lines),
      [['Anne-Marie Lefèvre-Dubois'], ['Anne-Marie', 'Lefèvre-Dubois'], ['Anne-Marie', 'Lefèvre-', 'Dubois']],
    );
    assert.deepEqual(
      cuts.map((c) => Math.round(c.size * 100) / 100),
      [4, 7.14, 10],
    );
  });

  it('never cuts inside a word, and caps the size at max', () => {
    assert.deepEqual(nameCuts('Featherstonehaugh', chars, { width: 100, max: 40, maxLines: 3 }), [{ lines: ['Featherstonehaugh'], size: 100 / 17 }]);
    assert.deepEqual(nameCuts('Ada', chars, { width: 100, max: 30, maxLines: 3 }), [{ lines: ['Ada'], size: 30 }]);
  });
});

describe('fitHeight', () => {
  it('leaves sizes that fit, shrinks the largest lines first, and scales all only below min', () => {
    assert.deepEqual(fitHeight([40, 30], 1, 80, 20), [40, 30]);
    const shrunk = fitHeight([50, 20, 20], 1, 80, 20);
    assert.ok(Math.abs(shrunk[0] - 40) < 0.01 && shrunk[1] === 20 && shrunk[2] === 20, String(shrunk));
    assert.deepEqual(fitHeight([30, 30, 30, 30], 1, 60, 20), [15, 15, 15, 15]);
  });
});

describe('chooseCuts', () => {
  const rule = { width: 100, max: 40, maxLines: 3 };
  it('keeps a name readable on one line, and wraps one that would fall under min', () => {
    const choice = (name: string) => ({ cuts: nameCuts(name, chars, rule), enough: 7 });
    const short = chooseCuts([choice('Anne-Marie')], 1, 200, 7);
    assert.deepEqual(short.fits.map((f) => f.lines), [['Anne-Marie']]);
    const long = chooseCuts([choice('Maximiliane-Alexandra von Hohenzollern')], 1, 200, 7);
    assert.ok(long.fits[0].lines.length > 1, JSON.stringify(long));
    assert.ok(Math.min(...long.sizes) >= 7, JSON.stringify(long.sizes));
  });

  it('wraps no further than the block height pays for', () => {
    // Three lines of each name would need 6 lines: at this height two of each keep more size.
    const names = ['Aaaa-Bbbb-Cccc', 'Dddd-Eeee-Ffff'].map((name) => ({ cuts: nameCuts(name, chars, rule), enough: 20 }));
    const chosen = chooseCuts(names, 1, 60, 20);
    assert.deepEqual(chosen.fits.map((f) => f.lines.length), [2, 2], JSON.stringify(chosen));
    assert.ok(Math.min(...chosen.sizes) > Math.min(...chooseCuts(names.map((n) => ({ ...n, cuts: [n.cuts[2]] })), 1, 60, 20).sizes));
  });
});

describe('namePlan (the labels, with the badge font)', () => {
  const font = loadFont('latin', 'bold');
  const widthOf = (line: string) => font.layout(line).advanceWidth / font.unitsPerEm;
  const capMm = (size: number) => ((size * font.capHeight) / font.unitsPerEm) * (25.4 / 72);

  it(`keeps long names at ${MIN_CAP_MM} mm capitals or more on A6 and 62x100mm by wrapping`, () => {
    const cases: [BadgeSize, string, string][] = [
      ['A6', 'Maximiliane-Alexandra', 'von Hohenzollern-Sigmaringen'],
      ['A6', 'Maximiliane-Alexandra', 'Lefèvre-Dubois de la Tour'],
      ['A6', 'Anne-Marie', 'Lefèvre-Dubois'],
      ['62x100mm', 'Anne-Marie', 'Lefèvre-Dubois'],
      ['62x100mm', 'Maximiliane-Alexandra', 'Dubois'],
      ['62x100mm', 'Rüth', 'Łukasz-Wiśniewski'],
    ];
    for (const [size, first, last] of cases) {
      const plan = namePlan(size, { first_name: first, last_name: last }, widthOf);
      const letters = (text: string) => text.replace(/\s/g, '');
      assert.deepEqual(plan.map((n) => letters(n.lines.join(''))), [letters(first), letters(last)], `${size} ${first} ${last}: every character kept`);
      for (const name of plan) {
        for (const s of name.sizes) assert.ok(capMm(s) >= MIN_CAP_MM, `${size} ${name.lines.join(' / ')}: ${capMm(s).toFixed(2)} mm`);
      }
    }
  });

  it('sets a short name on one line each, and a word too wide for a line smaller, never cut', () => {
    const ada = namePlan('A6', { first_name: 'Ada', last_name: 'Lovelace' }, widthOf);
    assert.deepEqual(ada.map((n) => n.lines), [['Ada'], ['Lovelace']]);
    assert.ok(capMm(ada[0].sizes[0]) > 11, 'about 11 mm capitals for a short first name on A6');
    const wide = namePlan('62x100mm', { first_name: 'Ada', last_name: 'Featherstonehaugh' }, widthOf);
    assert.deepEqual(wide[1].lines, ['Featherstonehaugh']);
    assert.ok(capMm(wide[1].sizes[0]) < MIN_CAP_MM);
  });
});
