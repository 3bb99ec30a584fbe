/**
 * The layers point one way: main/ -> server/ -> db/ -> core/, and server/ -> core/ (STYLE.md 11).
 * `npm run lint` holds the code to it; .ci/run fails when it breaks.
 */
module.exports = {
  forbidden: [
    { name: 'core-is-a-leaf', severity: 'error', comment: 'core/ holds what db/ and server/ share; it imports neither, nor any framework',
      from: { path: '^core/' }, to: { path: ['^(db|server|main|renderer)/', 'node_modules/(express|knex|pg|sqlite3|pino|zod|@asteasolutions)'] } },
    { name: 'db-knows-no-http', severity: 'error', comment: 'db/ imports core/ and knex, never server/ (HTTP statuses, wire schemas)',
      from: { path: '^db/' }, to: { path: ['^(server|main|renderer)/', 'node_modules/(express|zod|@asteasolutions|pino-http)'] } },
    { name: 'server-not-main', severity: 'error', from: { path: '^server/' }, to: { path: '^(main|renderer)/' } },
    { name: 'renderer-over-http', severity: 'error', comment: 'the screen talks to the API over HTTP like a LAN browser',
      from: { path: '^renderer/' }, to: { path: '^(db|main)/' } },
    { name: 'no-circular', severity: 'error', from: { path: '^(core|db)/' }, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '^(out|node_modules)/' },
  },
};
