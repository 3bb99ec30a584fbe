import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createDb } from '../db/knex';
import { loadConfig } from './config';
import { createApp } from './app';
import { LanIdentity, LanShare } from './lan';

/**
 * The API document exactly as GET /api/v1/openapi.json answers it, built from the app's own
 * route declarations without a database or a listening port (the app is created, never started).
 */
export async function buildOpenApiDocument() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-openapi-'));
  const dbPath = path.join(dir, 'doorlist.sqlite');
  const config = loadConfig({}, [], { db: dbPath, port: 0, logLevel: 'silent' });
  const db = createDb(dbPath);
  try {
    const lan = new LanShare(new LanIdentity(dbPath), { allowLan: false }, 0);
    const { deps } = createApp({ db, config, logger: pino({ level: 'silent' }), lan });
    return deps.documents.document();
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// `tsx server/write-openapi.ts <file>` (npm run lint:api): writes the document for the linter
// and the client generator.
if (require.main === module) {
  const target = process.argv[2];
  if (!target) {
    console.error('usage: tsx server/write-openapi.ts <file.json>');
    process.exit(2);
  }
  void buildOpenApiDocument().then((doc) => {
    fs.mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
    fs.writeFileSync(target, `${JSON.stringify(doc, null, 2)}\n`);
  });
}
