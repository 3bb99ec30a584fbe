import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'node:test';
import { EventFileWriter, readEventRecords, verifyEventFile, type EventFileRecord } from '../../server/event-file/format';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-read-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function readAll(file: string): Promise<{ records: EventFileRecord[]; chunks: number }> {
  const records: EventFileRecord[] = [];
  let chunks = 0;
  for await (const chunk of readEventRecords(file)) {
    chunks++;
    for (const record of chunk) records.push(record);
  }
  return { records, chunks };
}

test('reads every record once, in order, whole across the megabyte chunks it is read in', async () => {
  const file = path.join(dir, 'large.doorlist.gz');
  const writer = new EventFileWriter(fs.createWriteStream(file));
  await writer.header({ station: 'test', exported_at: new Date().toISOString(), event: { uid: 'e', name: 'E' }, tables: ['guests'], counts: { guests: 6000 } });
  // Lines of many lengths (up to 2 kB), so line ends fall anywhere in a chunk.
  const guests = Array.from({ length: 6000 }, (_, i) => ({ uid: `g${i}`, note: 'x'.repeat((i * 37) % 2000) }));
  await writer.records('guests', guests);
  await writer.finish();
  await verifyEventFile(file);

  const { records, chunks } = await readAll(file);
  assert.ok(chunks > 3, `${chunks} chunks: the file must span several`);
  assert.deepEqual(records.map((r) => r.record), guests);
  assert.ok(records.every((r) => r.table === 'guests'));
  assert.deepEqual(records.map((r) => r.bytes), guests.map((g) => Buffer.byteLength(JSON.stringify({ table: 'guests', record: g })) + 1));
});

test('a header that fills the whole first chunk is still the header, not a record', async () => {
  const file = path.join(dir, 'long-header.doorlist.gz');
  // A foreign writer's header with a key of its own, exactly the longest line allowed: the
  // first megabyte inflated holds no newline.
  const header = { format: 'doorlist-event', version: 1, station: 'elsewhere', exported_at: new Date().toISOString(), event: { uid: 'e', name: 'E' }, tables: ['guests'], counts: { guests: 2 }, checksum: { algorithm: 'sha256', location: 'trailer', covers: 'all' }, note: '' };
  header.note = 'x'.repeat(2 ** 20 - Buffer.byteLength(JSON.stringify(header)));
  const body = `${JSON.stringify(header)}\n{"table":"guests","record":{"uid":"a"}}\n{"table":"guests","record":{"uid":"b"}}\n`;
  assert.equal(body.indexOf('\n'), 2 ** 20);
  const trailer = { trailer: { records: 2, sha256: createHash('sha256').update(body).digest('hex') } };
  fs.writeFileSync(file, zlib.gzipSync(body + JSON.stringify(trailer) + '\n'));
  await verifyEventFile(file);
  const { records, chunks } = await readAll(file);
  assert.ok(chunks >= 2, `${chunks} chunks`);
  assert.deepEqual(records.map((r) => r.record), [{ uid: 'a' }, { uid: 'b' }]);
});

test('nothing after the trailer is read as a record', async () => {
  const file = path.join(dir, 'after-trailer.gz');
  fs.writeFileSync(file, zlib.gzipSync('{"format":"doorlist-event"}\n{"table":"guests","record":{"uid":"a"}}\n{"trailer":{"records":1}}\n{"table":"guests","record":{"uid":"late"}}\n'));
  const { records } = await readAll(file);
  assert.deepEqual(records.map((r) => r.record), [{ uid: 'a' }]);
});

test('a file without its last newline gives its last line too', async () => {
  const file = path.join(dir, 'no-newline.gz');
  const lines = ['{"format":"doorlist-event"}', '{"table":"guests","record":{"uid":"a"}}', '{"table":"guests","record":{"uid":"b"}}'];
  fs.writeFileSync(file, zlib.gzipSync(lines.join('\n')));
  const { records } = await readAll(file);
  assert.deepEqual(records.map((r) => r.record), [{ uid: 'a' }, { uid: 'b' }]);
});

test('a line that is not a record refuses the file where it is met', async () => {
  const file = path.join(dir, 'bad.gz');
  fs.writeFileSync(file, zlib.gzipSync('{"format":"doorlist-event"}\n{"table":"guests","record":{"uid":"a"}}\n[1]\n'));
  const seen: unknown[] = [];
  await assert.rejects(async () => {
    for await (const chunk of readEventRecords(file)) for (const { record } of chunk) seen.push(record);
  }, /a line is not a record/);
  assert.deepEqual(seen, [{ uid: 'a' }]);
});

test('a damaged gzip stream is the damaged-file error', async () => {
  const file = path.join(dir, 'truncated.gz');
  const whole = zlib.gzipSync(Array.from({ length: 2000 }, (_, i) => `{"table":"guests","record":{"uid":"${i}"}}`).join('\n'));
  fs.writeFileSync(file, whole.subarray(0, whole.length - 20));
  await assert.rejects(readAll(file), /damaged/);
});
