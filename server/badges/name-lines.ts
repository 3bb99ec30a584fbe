/**
 * How a name is set on a badge, as pure rules over a width function (widths at 1 pt, so they
 * scale with the size): a name goes on as few lines as keep it at its largest size, wrapping at
 * spaces and after hyphens (up to `maxLines`) before it is set smaller than `min`; the lines of
 * a name take one size, so they read as one name.
 */
export interface NameRule {
  /** The block's width, points. */
  width: number;
  /** The largest size, points. */
  max: number;
  /** The size it wraps to stay at (the smallest readable capitals), points. */
  min: number;
  maxLines: number;
}

export interface NameFit {
  lines: string[];
  size: number;
}

// A one-line name smaller than this share of its largest size is wrapped instead, even above `min`.
const WRAP_BELOW = 0.6;
// A space between words, in ems (an estimate: lines are measured whole once chosen).
const SPACE_EM = 0.26;

/** The name cut where it may break: after each run of spaces (kept, trimmed on drawing) and after each hyphen. */
export function nameTokens(text: string): string[] {
  return text.trim().match(/[^\s-]*(?:-+|\s+|$)/g)?.filter((t) => t !== '') ?? [];
}

/** Tokens packed greedily into lines no wider than `limit` ems; answers the lines and the widest. */
function pack(tokens: string[], widths: number[], limit: number): { lines: string[]; widest: number } {
  const lines: string[] = [];
  let line = '';
  let width = 0;
  let widest = 0;
  tokens.forEach((token, i) => {
    const gap = line !== '' && /\s$/.test(line) ? SPACE_EM : 0;
    if (line !== '' && width + gap + widths[i] > limit) {
      lines.push(line.trim());
      widest = Math.max(widest, width);
      line = '';
      width = 0;
    }
    width += (line === '' ? 0 : gap) + widths[i];
    line += token;
  });
  if (line !== '') lines.push(line.trim());
  return { lines, widest: Math.max(widest, width) };
}

/** The most balanced cut into at most `count` lines: the narrowest limit that still packs into them. */
function balanced(tokens: string[], widths: number[], count: number): { lines: string[]; widest: number } {
  let low = Math.max(...widths);
  let high = widths.reduce((a, b) => a + b, 0) + SPACE_EM * tokens.length;
  if (pack(tokens, widths, low).lines.length <= count) return pack(tokens, widths, low);
  for (let i = 0; i < 20; i++) {
    const mid = (low + high) / 2;
    if (pack(tokens, widths, mid).lines.length <= count) high = mid;
    else low = mid;
  }
  return pack(tokens, widths, high);
}

/**
 * The lines and size of one name: one line when it stays above WRAP_BELOW of `max` and above
 * `min`; otherwise the fewest lines (up to `maxLines`) that keep it there; failing that, the
 * cut into `maxLines` that keeps it largest.
 */
export function fitName(text: string, widthOf: (line: string) => number, rule: NameRule): NameFit {
  const tokens = nameTokens(text);
  if (tokens.length === 0) return { lines: [], size: 0 };
  const widths = tokens.map((t) => widthOf(t.trim()));
  const sizeOf = (lines: string[]) => Math.min(rule.max, ...lines.map((line) => rule.width / widthOf(line)));
  const wanted = Math.max(rule.min, rule.max * WRAP_BELOW);
  let best: NameFit | undefined;
  for (let count = 1; count <= Math.min(rule.maxLines, tokens.length); count++) {
    const { lines } = count === 1 ? { lines: [tokens.join('').trim()] } : balanced(tokens, widths, count);
    const fit = { lines, size: sizeOf(lines) };
    if (fit.size >= Math.min(wanted, rule.max)) return fit;
    if (!best || fit.size > best.size) best = fit;
  }
  return best!;
}

/**
 * Sizes of stacked lines made to fit `height` (each line `lineHeight` times its size): the
 * larger lines shrink first, none below `min` while the others can give way; only when every
 * line is at `min` (or was already smaller) is the whole set scaled down together.
 */
export function fitHeight(sizes: number[], lineHeight: number, height: number, min: number): number[] {
  const total = (list: number[]) => list.reduce((sum, s) => sum + s * lineHeight, 0);
  if (total(sizes) <= height) return sizes;
  const floor = sizes.map((s) => Math.min(s, min));
  if (total(floor) >= height) return floor.map((s) => (s * height) / total(floor));
  const at = (f: number) => sizes.map((s, i) => Math.max(floor[i], s * f));
  let low = 0;
  let high = 1;
  for (let i = 0; i < 30; i++) {
    const mid = (low + high) / 2;
    if (total(at(mid)) <= height) low = mid;
    else high = mid;
  }
  return at(low);
}
