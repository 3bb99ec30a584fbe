import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// main/ and preload are built for Electron; renderer/ is the door screen the server also
// serves to LAN browsers, so it is built once into out/renderer for both. The headless
// server (serve) and the `npm start` launcher are built beside main so both start from
// plain JavaScript in well under a second.
// The drivers of knex's other dialects: bundled knex names them, Doorlist never loads them.
const KNEX_DRIVERS_NOT_USED = ['better-sqlite3', 'mariadb/callback', 'mysql', 'mysql2', 'oracledb', 'pg-query-stream', 'tedious'];

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      externalizeDeps: { exclude: ['@asteasolutions/zod-to-openapi', 'csv-parse', 'csv-stringify', 'express', 'express-rate-limit', 'knex', 'nodemailer', 'pino', 'zod'] },
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'main/index.ts'),
          launch: resolve(__dirname, 'main/launch.ts'),
          serve: resolve(__dirname, 'server/serve.ts'),
        },
        external: KNEX_DRIVERS_NOT_USED,
        // V8 keeps each script's source for lazy compilation: one non-ASCII character anywhere
        // (the bundled translations, a dash in a comment) stores the whole 2.9 MB chunk as two
        // bytes a character. Licence comments stay.
        output: { charset: 'ascii', comments: { legal: true, annotation: false, jsdoc: false } },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: { input: { index: resolve(__dirname, 'main/preload.ts') } },
    },
  },
  renderer: {
    root: resolve(__dirname, 'renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      // LAN phones download it: minified, and the camera decoder is split out and loaded on use.
      minify: true,
      sourcemap: false,
      rollupOptions: { input: resolve(__dirname, 'renderer/index.html') },
    },
  },
});
