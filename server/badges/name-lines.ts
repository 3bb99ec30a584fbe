/**
 * How a name is set on a badge, as pure rules over a width function (widths at 1 pt, so they
 * scale with the size): each name (first, last) wraps at spaces and after hyphens onto up to
 * `maxLines` lines, the cuts chosen that keep the names nearest a readable size once the
 * block fits its height, so a name wraps before it is set smaller than the minimum; the lines
 * of a name take one size, so they read as one name.
 */
export interface NameRule {
  /** The block's width, points. */
  width: number;
  /** The largest size, points. */
  max: number;
  maxLines: number;
}

export interface NameFit {
  lines: string[];
  size: number;
}

// A name under this share of its largest size wraps if it can, even above the minimum.
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
 * The ways to set one name: on 1 to `maxLines` lines (the most balanced cut for each), each
 * with the size its widest line allows (at most `max`). A name with fewer places to break has
 * fewer ways.
 */
export function nameCuts(text: string, widthOf: (line: string) => number, rule: NameRule): NameFit[] {
  const tokens = nameTokens(text);
  if (tokens.length === 0) return [];
  const widths = tokens.map((t) => widthOf(t.trim()));
  const cuts: NameFit[] = [];
  for (let count = 1; count <= Math.min(rule.maxLines, tokens.length); count++) {
    const { lines } = count === 1 ? { lines: [tokens.join('').trim()] } : balanced(tokens, widths, count);
    if (cuts.some((cut) => cut.lines.length === lines.length)) continue;
    cuts.push({ lines, size: Math.min(rule.max, ...lines.map((line) => rule.width / widthOf(line))) });
  }
  return cuts;
}

/** One name's ways to be set, and the size past which it reads well enough (more is not needed). */
export interface NameChoice {
  cuts: NameFit[];
  enough: number;
}

/** The size a name wraps to reach: `min`, or WRAP_BELOW of its largest size if that is more. */
export function enoughSize(max: number, min: number): number {
  return Math.min(max, Math.max(min, max * WRAP_BELOW));
}

/**
 * The cut of each name (first, last) that, once the block fits its height, brings the name
 * furthest from its `enough` size nearest it, then both names together; among cuts as good,
 * the one with fewer lines, then the one whose smallest line is largest. So a name wraps rather than
 * shrinks below `enough`, and stays on one line when it reads well there.
 */
export function chooseCuts(names: NameChoice[], lineHeight: number, height: number, min: number): { fits: NameFit[]; sizes: number[] } {
  type Scored = { fits: NameFit[]; sizes: number[]; worst: number; reach: number; lines: number; smallest: number };
  const better = (a: Scored, b: Scored) => {
    if (Math.abs(a.worst - b.worst) > 0.01) return a.worst > b.worst;
    if (Math.abs(a.reach - b.reach) > 0.01) return a.reach > b.reach;
    if (a.lines !== b.lines) return a.lines < b.lines;
    return a.smallest > b.smallest;
  };
  let best: Scored | undefined;
  const combos = names.reduce<NameFit[][]>((all, name) => all.flatMap((combo) => name.cuts.map((cut) => [...combo, cut])), [[]]);
  for (const fits of combos) {
    const sizes = fitHeight(
      fits.flatMap((fit) => fit.lines.map(() => fit.size)),
      lineHeight,
      height,
      min,
    );
    let at = 0;
    const reaches = fits.map((fit, i) => Math.min(1, sizes[(at += fit.lines.length) - 1] / names[i].enough));
    const reach = reaches.reduce((a, b) => a + b, 0);
    const scored = { fits, sizes, worst: Math.min(...reaches), reach, lines: sizes.length, smallest: Math.min(...sizes) };
    if (!best || better(scored, best)) best = scored;
  }
  return best ? { fits: best.fits, sizes: best.sizes } : { fits: [], sizes: [] };
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
