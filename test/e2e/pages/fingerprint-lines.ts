import type { Locator } from '@playwright/test';

/** The lines a fingerprint is shown in, as a person reads them: its groups, line by line. */
export async function shownLines(fingerprint: Locator): Promise<string[]> {
  const groups = await fingerprint.locator('.fingerprint-group').evaluateAll((spans) => spans.map((s) => ({ top: Math.round(s.getBoundingClientRect().top), text: (s as HTMLElement).innerText.trim() })));
  const lines = new Map<number, string[]>();
  for (const g of groups) lines.set(g.top, [...(lines.get(g.top) ?? []), g.text]);
  return [...lines.values()].map((line) => line.join(' '));
}

/** What every screen must show: groups of four hex pairs, two groups a line. */
export function expectedLines(fingerprint: string): string[] {
  const pairs = fingerprint.toUpperCase().split(':');
  const groups: string[] = [];
  for (let i = 0; i < pairs.length; i += 4) groups.push(pairs.slice(i, i + 4).join(':'));
  const lines: string[] = [];
  for (let i = 0; i < groups.length; i += 2) lines.push(groups.slice(i, i + 2).join(' '));
  return lines;
}
