import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

/**
 * `npm run lint` has teeth: each rule of .dependency-cruiser.cjs is shown a probe, a file that
 * breaks it placed in the real folder it is about (so tsconfig paths and node_modules resolve
 * as in the code), and must report it. Probes are removed whatever happens.
 */

const ROOT = path.join(__dirname, '..', '..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const TAG = `lint-probe-${process.pid}`;

interface Probe {
  rule: string;
  /** Files written for the probe, relative to the repository: the first is the one that breaks the rule. */
  files: Record<string, string>;
  /** The import that must be reported, as `from → to` (each a path prefix). */
  from: string;
  to: string;
}

const probes: Probe[] = [
  {
    rule: 'core-is-a-leaf',
    files: { [`core/${TAG}-zod.ts`]: "import { z } from 'zod';\nexport const probe = z.string();\n" },
    from: `core/${TAG}-zod.ts`,
    to: 'node_modules/zod/',
  },
  {
    rule: 'core-is-a-leaf',
    files: { [`core/${TAG}-node.ts`]: "import fs from 'node:fs';\nexport const probe = fs.existsSync;\n" },
    from: `core/${TAG}-node.ts`,
    to: 'fs',
  },
  {
    rule: 'core-is-a-leaf',
    files: { [`core/${TAG}-db.ts`]: "import type { Conn } from '../db/knex';\nexport type Probe = Conn;\n" },
    from: `core/${TAG}-db.ts`,
    to: 'db/knex.ts',
  },
  {
    rule: 'services-below-http',
    files: { [`server/services/${TAG}.ts`]: "import { HttpError } from '../http/errors';\nexport const probe = HttpError;\n" },
    from: `server/services/${TAG}.ts`,
    to: 'server/http/errors.ts',
  },
  {
    rule: 'db-knows-no-http',
    files: { [`db/${TAG}.ts`]: "import { HttpError } from '../server/http/errors';\nexport const probe = HttpError;\n" },
    from: `db/${TAG}.ts`,
    to: 'server/http/errors.ts',
  },
  {
    rule: 'services-below-http',
    files: { [`server/services/${TAG}.ts`]: "import { HttpError } from '../http/errors';\nexport const probe = HttpError;\n" },
    from: `server/services/${TAG}.ts`,
    to: 'server/http/errors.ts',
  },
  {
    rule: 'db-knows-no-http',
    files: { [`db/${TAG}-zod.ts`]: "import { z } from 'zod';\nexport const probe = z.string();\n" },
    from: `db/${TAG}-zod.ts`,
    to: 'node_modules/zod/',
  },
  {
    rule: 'schemas-know-no-sql',
    files: { [`server/schemas/${TAG}.ts`]: "import type { Conn } from '../../db/knex';\nexport type Probe = Conn;\n" },
    from: `server/schemas/${TAG}.ts`,
    to: 'db/knex.ts',
  },
  {
    rule: 'server-not-main',
    files: { [`server/${TAG}.ts`]: "import { newUid } from '../renderer/src/station';\nexport const probe = newUid;\n" },
    from: `server/${TAG}.ts`,
    to: 'renderer/src/station.ts',
  },
  {
    rule: 'main-is-glue',
    files: { [`main/${TAG}.ts`]: "import { createDb } from '../db/knex';\nexport const probe = createDb;\n" },
    from: `main/${TAG}.ts`,
    to: 'db/knex.ts',
  },
  {
    rule: 'renderer-over-http',
    files: { [`renderer/src/${TAG}.ts`]: "import type { Conn } from '../../db/knex';\nexport type Probe = Conn;\n" },
    from: `renderer/src/${TAG}.ts`,
    to: 'db/knex.ts',
  },
  {
    rule: 'renderer-borrows-server-types-only',
    files: { [`renderer/src/${TAG}-runtime.ts`]: "import { Group } from '../../server/schemas/groups';\nexport const probe = Group;\n" },
    from: `renderer/src/${TAG}-runtime.ts`,
    to: 'server/schemas/groups.ts',
  },
  {
    rule: 'no-circular',
    files: {
      [`server/${TAG}-a.ts`]: `import { b } from './${TAG}-b';\nexport const a = (): number => b() + 1;\n`,
      [`server/${TAG}-b.ts`]: `import { a } from './${TAG}-a';\nexport const b = (): number => a() - 1;\n`,
    },
    from: `server/${TAG}-`,
    to: `server/${TAG}-`,
  },
];

/** A renderer file that names a server type: allowed, so the type-only rule is not too broad. */
const TYPE_ONLY = `renderer/src/${TAG}-types.ts`;

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

describe('npm run lint: every rule fires on a probe', () => {
  let violations: Violation[] = [];
  let ruleNames: string[] = [];
  const written: string[] = [];

  before(async () => {
    const files: Record<string, string> = Object.assign({}, ...probes.map((probe) => probe.files));
    files[TYPE_ONLY] = "import type { Group } from '../../server/schemas/groups';\nexport type Probe = Group;\n";
    try {
      for (const [file, text] of Object.entries(files)) {
        fs.writeFileSync(path.join(ROOT, file), text, { flag: 'wx' });
        written.push(file);
      }
      // dependency-cruiser's API is ESM only: loaded as its docs show, through its public exports.
      const { cruise } = await import('dependency-cruiser');
      const { default: extractDepcruiseOptions } = await import('dependency-cruiser/config-utl/extract-depcruise-options');
      const { default: extractTSConfig } = await import('dependency-cruiser/config-utl/extract-ts-config');
      const options = await extractDepcruiseOptions(CONFIG);
      ruleNames = (options.ruleSet?.forbidden ?? []).map((rule) => rule.name ?? '');
      const cwd = process.cwd();
      process.chdir(ROOT);
      try {
        const result = await cruise(Object.keys(files), options, {}, { tsConfig: extractTSConfig(path.join(ROOT, 'tsconfig.json')) });
        if (typeof result.output === 'string') throw new Error('dependency-cruiser answered text, not a result');
        violations = result.output.summary.violations as Violation[];
      } finally {
        process.chdir(cwd);
      }
    } finally {
      for (const file of written) fs.rmSync(path.join(ROOT, file), { force: true });
    }
  });

  after(() => {
    for (const file of written) assert.equal(fs.existsSync(path.join(ROOT, file)), false, `${file} left behind`);
  });

  it('has a probe for every rule in the config', () => {
    assert.ok(ruleNames.length > 0);
    assert.deepEqual([...new Set(probes.map((probe) => probe.rule))].sort(), [...ruleNames].sort());
  });

  for (const probe of probes) {
    it(`${probe.rule}: ${probe.from} → ${probe.to}`, () => {
      const found = violations.filter((v) => v.rule.name === probe.rule && v.from.startsWith(probe.from));
      assert.ok(
        found.some((v) => v.to.startsWith(probe.to)),
        `not reported; violations: ${JSON.stringify(violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`), null, 1)}`,
      );
    });
  }

  it('lets renderer/ name a server/ type (import type)', () => {
    assert.deepEqual(violations.filter((v) => v.from === TYPE_ONLY), []);
  });
});

describe('tsconfig and the lint cover every source folder', () => {
  const folders = fs
    .readdirSync(ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !['node_modules', 'out', 'docs', 'test-results'].includes(entry.name))
    .map((entry) => entry.name)
    .filter((name) => hasTypeScript(path.join(ROOT, name)));

  function hasTypeScript(dir: string): boolean {
    return fs.readdirSync(dir, { withFileTypes: true }).some((entry) =>
      entry.isDirectory() ? hasTypeScript(path.join(dir, entry.name)) : /\.tsx?$/.test(entry.name),
    );
  }

  it('tsconfig.json includes each folder that holds TypeScript', () => {
    const include: string[] = JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')).include;
    assert.ok(folders.includes('core'));
    for (const folder of folders) assert.ok(include.includes(folder), `tsconfig.json does not include ${folder}/`);
  });

  it('npm run lint cruises each folder of the app', () => {
    const lint: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.lint;
    const cruised = lint.split(/\s+/);
    for (const folder of folders.filter((name) => name !== 'test')) assert.ok(cruised.includes(folder), `npm run lint skips ${folder}/`);
  });
});
