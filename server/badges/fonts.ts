import fs from 'node:fs';
import path from 'node:path';
import * as fontkit from 'fontkit';

/**
 * The Noto fonts a badge prints with, shipped as npm packages so every laptop has them:
 * Noto Sans (Latin, Greek, Cyrillic), Noto Naskh Arabic, Noto Sans Hebrew and Noto Sans CJK
 * SC (Han, simplified and traditional, and kana). PDFKit embeds only the glyphs a document uses.
 * Each file is read once, when a name first needs it.
 */
export type FontFamily = 'latin' | 'arabic' | 'hebrew' | 'cjk';
export type FontWeight = 'bold' | 'regular';

/** Tried in this order for each character: the first that has a glyph prints it. */
const FAMILIES: FontFamily[] = ['latin', 'arabic', 'hebrew', 'cjk'];

/** The packages' font folders, found from their public entry points (their exports name no font files). */
function packageDir(entry: string, up: number): string {
  return path.resolve(path.dirname(require.resolve(entry)), ...Array<string>(up).fill('..'));
}

const FILES: Record<FontFamily, () => Record<FontWeight, string>> = {
  latin: () => {
    const dir = packageDir('@expo-google-fonts/noto-sans', 0);
    return { bold: path.join(dir, '700Bold/NotoSans_700Bold.ttf'), regular: path.join(dir, '400Regular/NotoSans_400Regular.ttf') };
  },
  arabic: () => {
    const dir = path.join(packageDir('@embedpdf/fonts-arabic', 1), 'fonts');
    return { bold: path.join(dir, 'NotoNaskhArabic-Bold.ttf'), regular: path.join(dir, 'NotoNaskhArabic-Regular.ttf') };
  },
  hebrew: () => {
    const dir = path.join(packageDir('@embedpdf/fonts-hebrew', 1), 'fonts');
    return { bold: path.join(dir, 'NotoSansHebrew-Bold.ttf'), regular: path.join(dir, 'NotoSansHebrew-Regular.ttf') };
  },
  cjk: () => {
    const dir = path.join(packageDir('@embedpdf/fonts-sc', 1), 'fonts');
    return { bold: path.join(dir, 'NotoSansHans-Bold.otf'), regular: path.join(dir, 'NotoSansHans-Regular.otf') };
  },
};

/**
 * Each font is parsed once and shared by every document: PDFKit takes a parsed font, and
 * fontkit's parse of a font's layout tables (Noto Sans's kerning and marks) costs about half
 * a second, paid again by every badge were each document to parse its own copy.
 */
const loaded = new Map<string, fontkit.Font>();

/**
 * Makes every glyph the character map names, with its character, before anything is laid out.
 * fontkit keeps the first glyph object it makes for an id, with the characters it was made for,
 * and PDFKit's text layer (ToUnicode) reads them: made first as part of another (the "u" in a
 * composite "ụ" or "ű", the hyphen in a decomposed form), "u" read back as "ụ" or as nothing
 * in every later PDF ("R th"). About 0.1 s a font, once, in the badge worker.
 */
function glyphsFromCharacterMap(font: fontkit.Font): void {
  for (const codePoint of font.characterSet) {
    // Compatibility characters (Arabic presentation forms, the fi ligature, Kangxi radicals)
    // share the glyphs of the letters they stand for: those glyphs read back as the letters.
    const char = String.fromCodePoint(codePoint);
    if (char.normalize('NFKC') === char) font.glyphForCodePoint(codePoint);
  }
}

export function fontName(family: FontFamily, weight: FontWeight): string {
  return `${family}-${weight}`;
}

export function loadFont(family: FontFamily, weight: FontWeight): fontkit.Font {
  const name = fontName(family, weight);
  let font = loaded.get(name);
  if (!font) {
    font = fontkit.create(fs.readFileSync(FILES[family]()[weight])) as fontkit.Font;
    glyphsFromCharacterMap(font);
    loaded.set(name, font);
  }
  return font;
}

/** A stretch of text printed in one font. */
export interface TextRun {
  family: FontFamily;
  text: string;
  rtl: boolean;
}

// Characters that take the font of the text around them.
const NEUTRAL = /[\s\p{P}\p{S}\p{N}]/u;
const RTL_FAMILIES = new Set<FontFamily>(['arabic', 'hebrew']);

function familyOf(codePoint: number, weight: FontWeight): FontFamily {
  // Bold and regular of a family cover the same characters: the regular files are checked
  // only when a document prints in regular, so a name alone never loads them.
  return FAMILIES.find((family) => loadFont(family, weight).hasGlyphForCodePoint(codePoint)) ?? 'latin';
}

/**
 * `text` cut into runs of one font each, in the order they are read. Spaces, digits and
 * punctuation stay with the run they stand in.
 */
export function textRuns(text: string, weight: FontWeight): TextRun[] {
  const runs: TextRun[] = [];
  for (const char of text) {
    const last = runs[runs.length - 1];
    const family = last && NEUTRAL.test(char) ? last.family : familyOf(char.codePointAt(0)!, weight);
    if (last && last.family === family) last.text += char;
    else runs.push({ family, text: char, rtl: RTL_FAMILIES.has(family) });
  }
  return runs;
}

/** A run as drawn, and whether a space stands between it and the next one drawn. */
export interface DrawnRun extends TextRun {
  spaceAfter: boolean;
}

/**
 * Runs in the order they are drawn from left to right, trimmed: a line that starts in a
 * right-to-left script reads from the right, so its runs are laid out in reverse. (Each
 * run's own glyphs are ordered by the font engine.)
 */
export function visualOrder(runs: TextRun[]): DrawnRun[] {
  const kept = runs.filter((r) => r.text.trim() !== '');
  const logical = kept.map((r, i) => ({
    ...r,
    text: r.text.trim(),
    spaceAfter: i < kept.length - 1 && (/\s$/.test(r.text) || /^\s/.test(kept[i + 1].text)),
  }));
  if (!logical[0]?.rtl) return logical;
  // Reversed, the space after a drawn run is the one before it in reading order.
  return logical.reverse().map((r, i, all) => ({ ...r, spaceAfter: i < all.length - 1 && all[i + 1].spaceAfter }));
}
