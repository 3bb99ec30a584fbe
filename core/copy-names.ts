/**
 * Names for the copies a duplication makes, so no copy reads like its source or like another
 * event of the same group: "Gala (copy)", then "Gala (copy 2)", "Gala (copy 3)"... skipping
 * every name in `taken`. A name the client gives is the first copy's name as written; further
 * copies of that request add " (2)", " (3)"... Names stay within `maxLength` by shortening
 * the base, never the suffix. `word` is the suffix's word in the organiser's language (the
 * console names a copy "Gala (Kopie)" in German; the API, with no language, says "copy").
 */
export function copyNames(source: string, quantity: number, taken: Iterable<string>, given?: string, maxLength = 255, word = 'copy'): string[] {
  const used = new Set(taken);
  const names: string[] = [];
  const fit = (base: string, suffix: string) => base.slice(0, Math.max(0, maxLength - suffix.length)).trimEnd() + suffix;
  if (given !== undefined) {
    for (let n = 1; names.length < quantity; n++) {
      const name = n === 1 ? given : fit(given, ` (${n})`);
      if (n === 1 || !used.has(name)) names.push(name);
      used.add(name);
    }
    return names;
  }
  for (let n = 1; names.length < quantity; n++) {
    const name = fit(source, n === 1 ? ` (${word})` : ` (${word} ${n})`);
    if (!used.has(name)) {
      names.push(name);
      used.add(name);
    }
  }
  return names;
}
