/**
 * The layers point one way: main/ -> server/ -> db/ -> core/, and server/ -> core/ (STYLE.md 11);
 * renderer/ talks to server/ over HTTP and borrows its types only.
 * `npm run lint` holds the code to it; .ci/run fails when it breaks, and
 * test/api/lint-rules.test.ts proves that each rule fires on a probe import.
 */

/**
 * The npm packages core/ may import. core/ is shared by the server and the browser bundle, so it
 * takes no framework and no Node built-in: only uuid, for time-ordered record uids (core/uid.ts).
 */
const CORE_PACKAGES = ['uuid'];

module.exports = {
  forbidden: [
    {
      name: 'core-is-a-leaf',
      severity: 'error',
      comment: `core/ holds what db/, server/ and renderer/ share: it imports only core/ and ${CORE_PACKAGES.join(', ')} (no framework, no Node built-in)`,
      from: { path: '^core/' },
      to: { pathNot: [`^core/`, ...CORE_PACKAGES.map((name) => `^node_modules/${name}/`)] },
    },
    {
      name: 'db-knows-no-http',
      severity: 'error',
      comment: 'db/ imports core/, knex and the drivers, never server/ (HTTP statuses, wire schemas) nor the app',
      from: { path: '^db/' },
      to: { path: ['^(server|main|renderer)/', '^node_modules/(express|zod|@asteasolutions|pino-http)/'] },
    },
    {
      name: 'schemas-know-no-sql',
      severity: 'error',
      comment: 'server/schemas/ describes the wire; types it shares with db/ live in core/',
      from: { path: '^server/schemas/' },
      to: { path: '^db/' },
    },
    {
      name: 'services-below-http',
      comment: 'server/services/ decides; domain errors come from core/, field errors from server/schemas/, never from server/http/',
      severity: 'error',
      from: { path: '^server/services/' },
      to: { path: '^server/http/' },
    },
    {
      name: 'server-not-main',
      severity: 'error',
      comment: 'server/ runs without Electron or the screen',
      from: { path: '^server/' },
      to: { path: '^(main|renderer)/' },
    },
    {
      name: 'main-is-glue',
      severity: 'error',
      comment: 'main/ starts the server and draws the window; data goes through server/',
      from: { path: '^main/' },
      to: { path: '^db/' },
    },
    {
      name: 'renderer-over-http',
      severity: 'error',
      comment: 'the screen talks to the API over HTTP like a LAN browser',
      from: { path: '^renderer/' },
      to: { path: '^(db|main)/' },
    },
    {
      name: 'renderer-borrows-server-types-only',
      severity: 'error',
      comment: 'renderer/ may name server/ types (import type), never load server code into the browser bundle',
      from: { path: '^renderer/' },
      to: { path: '^server/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'no module imports itself through others, anywhere',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // npm packages stay in the graph (rules above name them) but are not followed into.
    doNotFollow: { path: '^node_modules/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '^out/' },
    // Resolve packages as Node and the bundler do (package.json "exports"), so every import of an
    // npm package lands on a path the rules can name instead of staying unresolved.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], mainFields: ['module', 'main', 'types'] },
  },
};
