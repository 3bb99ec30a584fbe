import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.join(__dirname, '..', '..');
const PAGES = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(file: string): Set<string> {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#+ (.+)$/gm)].map((m) => m[1].trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-')));
}

describe('README.md and docs/: a user\'s clone has everything they link', () => {
  it('keeps README.md under 400 lines', () => {
    assert.ok(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length < 400);
  });

  for (const page of PAGES) {
    it(`${page}: every link stays in the repository and leads somewhere`, () => {
      const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        assert.doesNotMatch(target, /^[a-z]+:/i, `${page} links outside the repository: ${target}`);
        const [file, anchor] = target.split('#');
        const resolved = file ? path.normalize(path.join(path.dirname(page), file)) : page;
        assert.ok(!resolved.startsWith('..'), `${page} links outside the repository: ${target}`);
        assert.ok(fs.existsSync(path.join(ROOT, resolved)), `${page} links to a missing ${target}`);
        if (anchor && resolved.endsWith('.md')) assert.ok(anchorsOf(resolved).has(anchor), `${page} links to a missing heading: ${target}`);
      }
    });
  }
});
