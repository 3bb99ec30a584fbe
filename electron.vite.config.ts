import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';

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
          // `npm run doorlist`: the command line over the same database code.
          cli: resolve(__dirname, 'server/cli.ts'),
          // Its own file, which serve.js compiles with a code cache (server/code-cache.ts).
          start: resolve(__dirname, 'server/start.ts'),
          // Badges are drawn in a worker thread of their own (server/badges/renderer.ts finds it).
          'badge-worker': resolve(__dirname, 'server/badges/worker.ts'),
        },
        external: KNEX_DRIVERS_NOT_USED,
        // V8 keeps each script's source for lazy compilation: one non-ASCII character anywhere
        // (the bundled translations, a dash in a comment) stores the whole 2.9 MB chunk as two
        // bytes a character. Licence comments stay.
        // A dependency loaded on first use is required, never import()ed: a function V8 compiled
        // from serve.js's code cache has no dynamic-import callback on Node 20, and its import()
        // fails with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING (the LAN's HTTPS, on every start after the first).
        output: { charset: 'ascii', comments: { legal: true, annotation: false, jsdoc: false }, dynamicImportInCjs: false },
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
    plugins: [
      react(),
      // The door screen as an installable offline app (DESIGN "Sharing on the LAN"): the service
      // worker keeps the app shell, so a reload while the server is down comes back from it.
      // It never answers for the API or /ca.crt: those always go to the server.
      VitePWA({
        registerType: 'autoUpdate',
        injectRegister: false,
        manifest: {
          name: 'Doorlist',
          short_name: 'Doorlist',
          description: 'Offline check-in for the door',
          start_url: '/',
          scope: '/',
          display: 'standalone',
          background_color: '#0f172a',
          theme_color: '#0f172a',
          icons: [
            { src: 'icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any maskable' },
            { src: 'icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any maskable' },
          ],
        },
        workbox: {
          globPatterns: ['**/*.{js,css,html,png,svg,woff2,wasm}'],
          // The camera decoder is loaded on use; it is kept too, so the camera works offline.
          maximumFileSizeToCacheInBytes: 4 * 1024 * 1024,
          navigateFallback: '/index.html',
          navigateFallbackDenylist: [/^\/api\//, /^\/ca\.crt$/],
          cleanupOutdatedCaches: true,
          // The first visit is kept too: a door opened once can be reloaded offline at once.
          clientsClaim: true,
        },
      }),
    ],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      // LAN phones download it: minified, and the camera decoder is split out and loaded on use.
      minify: true,
      sourcemap: false,
      rollupOptions: { input: resolve(__dirname, 'renderer/index.html') },
    },
  },
});
