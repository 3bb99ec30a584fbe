import fs from 'node:fs';
import { createDb, migrateLatest } from '../../db/knex';

/**
 * A migrated SQLite file with 2,000 groups, three of whose pages (near the file's end, far
 * from the migrations' and users' pages a start reads) are then overwritten: a database that
 * opens but fails SQLite's page check.
 */
export async function writeDamagedDatabase(file: string): Promise<void> {
  const db = createDb(file);
  await migrateLatest(db);
  for (let chunk = 0; chunk < 20; chunk++) {
    await db('groups').insert(Array.from({ length: 100 }, (_, i) => ({ uid: `g-${chunk}-${i}`, name: `Group ${'x'.repeat(100)} ${chunk}-${i}`, created: 'x', modified: 'x' })));
  }
  await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
  const pageSize = Number((await db.raw('PRAGMA page_size'))[0].page_size);
  await db.destroy();
  const fd = fs.openSync(file, 'r+');
  // Pages the groups were written to last, near the file's end: what start-up itself reads
  // (the schema, the migrations, the users) lies before them.
  fs.writeSync(fd, Buffer.alloc(3 * pageSize, 0xff), 0, 3 * pageSize, fs.statSync(file).size - 12 * pageSize);
  fs.closeSync(fd);
}
