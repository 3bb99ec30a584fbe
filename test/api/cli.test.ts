import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import { createDb } from '../../db/knex';
import { createEvent, createGroup } from '../helpers/fixtures';
import { scan, seedGuests, seedRegistrationType } from '../helpers/checkins';
import { TestServer } from '../helpers/server';
import { CLI_ENTRY } from '../helpers/built-app';

const ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);

/** `npm run doorlist -- <args>`, as a person types it: exit code, stdout and stderr. */
async function doorlist(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI_ENTRY, ...args], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('npm run doorlist -- export / import (the command line)', () => {
  let laptop1: TestServer;
  let laptop2: TestServer;
  let eventId: number;
  let file: string;

  before(async () => {
    [laptop1, laptop2] = await Promise.all([TestServer.start(), TestServer.start()]);
    eventId = await createEvent(laptop1, await createGroup(laptop1), { name: 'Launch Night' });
    const type = await seedRegistrationType(laptop1, eventId, 'VIP');
    await seedGuests(laptop1, eventId, type, [{ barcode: 'CLI-1' }, { barcode: 'CLI-2' }, { barcode: 'CLI-3' }]);
    assert.equal((await scan(laptop1, eventId, { barcode: 'CLI-1', station: 'North' })).status, 201);
    file = path.join(laptop1.dir, 'launch-night.doorlist.gz');
  });
  after(async () => {
    await Promise.all([laptop1?.stop(), laptop2?.stop()]);
  });

  it('exports an event from one database and imports it into another, with the counts', async () => {
    const exported = await doorlist(['export', '--event', String(eventId), '--out', file, '--db', laptop1.config.db]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /Exported "Launch Night" \(event \d+\) to .*: \d+ records/);
    assert.match(exported.stdout, /guests: 3/);
    assert.ok(fs.statSync(file).size > 0);

    const groupId = await createGroup(laptop2);
    const imported = await doorlist(['import', '--in', file, '--group', String(groupId), '--db', laptop2.config.db]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /^Created event (\d+) in group \d+\./);
    assert.match(imported.stdout, /guests\s+3\s+0\s+0\s+0/);
    assert.match(imported.stdout, /Check-ins added: 1/);

    const newId = Number(/^Created event (\d+) in group \d+\./.exec(imported.stdout)![1]);
    const guests = await laptop2.get(`/events/${newId}/guests`);
    assert.equal(guests.body.count, 3);
    assert.deepEqual(
      guests.body.results.filter((g: { checked_in: boolean }) => g.checked_in).map((g: { barcode: string }) => g.barcode),
      ['CLI-1'],
    );

    // The same file again merges and changes nothing.
    const again = await doorlist(['import', '--in', file, '--db', laptop2.config.db]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`^Merged into event ${newId}\\.`));
    assert.match(again.stdout, /Check-ins added: 0/);
  });

  it('imports into an empty database without --group: the event goes into the file\'s group, made there', async () => {
    const empty = path.join(laptop1.dir, 'fresh-laptop.sqlite');
    const imported = await doorlist(['import', '--in', file, '--db', empty]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /^Created event 1 in group 1, made from the file's group\./);
    const fresh = createDb(empty);
    try {
      const group = await fresh('groups').first();
      const original = await laptop1.db('groups').where({ id: (await laptop1.db('events').where({ id: eventId }).first()).group_id }).first();
      assert.deepEqual(
        { uid: group.uid, name: group.name, type: group.type, email: group.email, parent_id: group.parent_id },
        { uid: original.uid, name: original.name, type: original.type, email: original.email, parent_id: null },
      );
      assert.equal((await fresh('events').first()).group_id, group.id);
    } finally {
      await fresh.destroy();
    }
  });

  it('exports with --since only what changed, and says so', async () => {
    // What the tests before wrote changed an hour ago, so it falls before `since` (whole seconds)
    // however fast they ran.
    const anHourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await laptop1.db('guests').where({ event_id: eventId }).update({ modified: anHourAgo });
    await laptop1.db('checkins').where({ event_id: eventId }).update({ modified: anHourAgo });
    const since = new Date(Date.now() - 1000).toISOString().slice(0, 19);
    assert.equal((await scan(laptop1, eventId, { barcode: 'CLI-2', station: 'South' })).status, 201);
    const delta = path.join(laptop1.dir, 'delta.doorlist.gz');
    const exported = await doorlist(['export', '--event', String(eventId), '--out', delta, '--since', since, '--db', laptop1.config.db]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /^Exported the changes since .* of "Launch Night" \(event \d+\)/);
    assert.match(exported.stdout, /checkins: 1\n/);
    assert.match(exported.stdout, /guests: 1\n/);
    const badSince = await doorlist(['export', '--event', String(eventId), '--out', delta, '--since', 'yesterday', '--db', laptop1.config.db]);
    assert.equal(badSince.code, 1);
    assert.match(badSince.stderr, /^--since must be Unix seconds or an ISO datetime\./);
  });

  it('refuses a file without its group into an empty database without --group, in a sentence', async () => {
    const lines = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    delete lines[0].group;
    const body = lines.slice(0, -1).map((l) => JSON.stringify(l) + '\n').join('');
    const sha256 = createHash('sha256').update(body).digest('hex');
    const groupless = path.join(laptop1.dir, 'groupless.doorlist.gz');
    fs.writeFileSync(groupless, zlib.gzipSync(body + JSON.stringify({ trailer: { records: lines.length - 2, sha256 } }) + '\n'));
    const refused = await doorlist(['import', '--in', groupless, '--db', path.join(laptop1.dir, 'another-fresh.sqlite')]);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'Import refused: --group: This field is required.\n');
  });

  it('refuses a damaged file with the reason and exit code 1, and writes nothing', async () => {
    const damaged = path.join(laptop1.dir, 'damaged.doorlist.gz');
    fs.writeFileSync(damaged, fs.readFileSync(file).subarray(0, 200));
    const groupId = await createGroup(laptop2, { name: 'Damaged' });
    const before = (await laptop2.get('/events')).body.count;
    const refused = await doorlist(['import', '--in', damaged, '--group', String(groupId), '--db', laptop2.config.db]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^Import refused: /);
    assert.equal((await laptop2.get('/events')).body.count, before);
  });

  it('answers a wrong command line with what is missing and the usage', async () => {
    const missing = await doorlist(['export', '--db', laptop1.config.db]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /export needs --event <id> and --out <file>\./);
    assert.match(missing.stderr, /Usage:/);

    const unknownEvent = await doorlist(['export', '--event', '999', '--out', file, '--db', laptop1.config.db]);
    assert.equal(unknownEvent.code, 1);
    assert.match(unknownEvent.stderr, /Event 999 not found in this database\./);

    const noCommand = await doorlist([]);
    assert.equal(noCommand.code, 2);
    assert.match(noCommand.stdout, /Usage:/);
  });
});
