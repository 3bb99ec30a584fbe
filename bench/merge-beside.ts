import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createDb } from '../db/knex';
import type { GuestInsert } from '../db/repositories/guests';
import { insertGuests } from '../db/repositories/guest-inserts';
import { EventFileWriter, readEventRecords, verifyEventFile, type EventFileRecord } from '../server/event-file';
import { percentile, round, type Log, type Metric } from './common';
import { barcodeOf } from './seed';

/**
 * The door beside the large changes of issue 35: a merge of a delta with many changed guests,
 * a door key's file of as many check-ins, and duplicate_event x20 of an event with a
 * 5,000-choice question. Two stations scan one guest after another meanwhile: one at the
 * seeded event (another event), one at the event being changed.
 */
export const MERGE_BESIDE_TARGETS = { p99Ms: 250 };
const MAX_CHANGED = 25_000;
const CHOICES = 5_000;
const COPIES = 20;

export interface MergeBesideInput {
  baseUrl: string;
  /** A key of the seeded event's group, and the administrator's token (to make a door key). */
  key: string;
  adminToken: string;
  /** The database the server runs on (DOORLIST_DB), where the changed event is seeded. */
  db: string;
  groupId: number;
  /** The seeded event, and the first of its guests not scanned yet. */
  eventId: number;
  guests: number;
  unscannedFrom: number;
}

async function call(input: MergeBesideInput, method: string, pathName: string, options: { body?: unknown; file?: string; token?: string } = {}) {
  const headers: Record<string, string> = { authorization: `Token ${options.token ?? input.key}` };
  let body: BodyInit | undefined;
  if (options.file) {
    headers['content-type'] = 'application/gzip';
    body = fs.createReadStream(options.file) as unknown as BodyInit;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const res = await fetch(`${input.baseUrl}${pathName}`, { method, headers, body, ...(options.file ? { duplex: 'half' } : {}) } as RequestInit);
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${pathName}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Writes `file` from `source` with its records passed through `change` and `extra` added at the end. */
async function rewrite(source: string, file: string, change: (r: EventFileRecord) => EventFileRecord, extra: EventFileRecord[] = []): Promise<void> {
  const header = await verifyEventFile(source);
  const counts = { ...header.counts };
  for (const r of extra) counts[r.table] = (counts[r.table] ?? 0) + 1;
  const writer = new EventFileWriter(fs.createWriteStream(file));
  const { format: _format, version: _version, checksum: _checksum, ...rest } = header;
  await writer.header({ ...rest, counts });
  for await (const records of readEventRecords(source)) {
    for (const r of records) {
      const changed = change(r);
      await writer.records(changed.table, [changed.record]);
    }
  }
  for (const r of extra) await writer.records(r.table, [r.record]);
  await writer.finish();
}

export async function benchMergeBeside(input: MergeBesideInput, log: Log): Promise<{ metrics: Metric[]; scanned: number }> {
  const changed = Math.min(MAX_CHANGED, Math.max(1000, Math.floor(input.guests / 4)));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-bench-merge-'));
  let next = input.unscannedFrom;
  const metrics: Metric[] = [];
  try {
    // The event the changes go into, with `changed` guests, seeded straight into the database.
    const target = await call(input, 'POST', '/events', { body: { name: 'Bench merge target', group_id: input.groupId, starts: '2026-12-01T09:00:00', ends: '2026-12-01T23:00:00', timezone: 'GMT' } });
    const types = await call(input, 'POST', `/events/${target.id}/registration_types`, { body: { name: 'Delegate', type: 'ticket', description: '' } });
    const db = createDb(input.db);
    try {
      for (let start = 0; start < changed; start += 5000) {
        const batch: GuestInsert[] = [];
        for (let i = start; i < Math.min(changed, start + 5000); i++) batch.push({ registration_type_id: types.id, first_name: 'Merge', last_name: `Before${i}`, email: `merge${i}@bench.test`, barcode: `MT${String(i).padStart(7, '0')}` });
        await db.transaction((trx) => insertGuests(trx, target.id, batch));
      }
    } finally {
      await db.destroy();
    }
    const current = path.join(dir, 'current.doorlist.gz');
    const exported = await fetch(`${input.baseUrl}/events/${target.id}/export`, { headers: { authorization: `Token ${input.key}` } });
    fs.writeFileSync(current, Buffer.from(await exported.arrayBuffer()));

    /** Two stations scan until `work` ends: the seeded event's next guests, and the target's. */
    const beside = async (what: string, work: () => Promise<unknown>) => {
      let done = false;
      const started = performance.now();
      const running = work().finally(() => (done = true));
      running.catch(() => undefined);
      const latencies: number[] = [];
      const station = async (eventId: number, barcode: (i: number) => string, from: number) => {
        for (let i = from; !done; i++) {
          const t = performance.now();
          const res = await fetch(`${input.baseUrl}/events/${eventId}/checkins`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Token ${input.key}` },
            body: JSON.stringify({ barcode: barcode(i), station: 'Beside a merge' }),
          });
          await res.arrayBuffer();
          latencies.push(performance.now() - t);
          // At the changed event a guest may be in already (the door key's file checks in every one): 409 is the door's answer too.
          if (res.status >= 300 && !(eventId === target.id && res.status === 409)) throw new Error(`scan beside ${what}: ${res.status}`);
          if (eventId === input.eventId) next = Math.max(next, i + 1);
        }
      };
      const sameFrom = Math.floor(changed / 2);
      await Promise.all([station(input.eventId, barcodeOf, next), station(target.id, (i) => `MT${String(sameFrom + (i % (changed - sameFrom))).padStart(7, '0')}`, 0), running]);
      const workMs = performance.now() - started;
      latencies.sort((a, b) => a - b);
      const p99 = round(percentile(latencies, 99), 1);
      log(`  door beside ${what}: ${latencies.length} scans, p50 ${round(percentile(latencies, 50), 1)} ms, p99 ${p99} ms, max ${round(latencies[latencies.length - 1] ?? NaN, 1)} ms; took ${Math.round(workMs)} ms`);
      metrics.push(
        { section: 'merge-beside', name: `door p50 beside ${what}`, value: round(percentile(latencies, 50), 1), unit: 'ms' },
        { section: 'merge-beside', name: `door p99 beside ${what}`, value: p99, unit: 'ms', target: `≤ ${MERGE_BESIDE_TARGETS.p99Ms}`, ok: p99 <= MERGE_BESIDE_TARGETS.p99Ms },
        { section: 'merge-beside', name: `${what} took`, value: Math.round(workMs), unit: 'ms' },
      );
    };

    // A delta in which every guest changed, later than here.
    const delta = path.join(dir, 'delta.doorlist.gz');
    const later = new Date().toISOString();
    await rewrite(current, delta, (r) => (r.table === 'guests' ? { ...r, record: { ...(r.record as object), last_name: `After${(r.record as { barcode: string }).barcode}`, modified: later } } : r));
    await beside(`a merge of ${changed} changed guests`, () => call(input, 'POST', '/events/import', { file: delta }));

    // A door key's file: the event as it is, with a check-in for every guest.
    const doorKey = (await call(input, 'POST', `/groups/${input.groupId}/api_keys`, { body: { name: 'bench door role', role: 'door' }, token: input.adminToken })).key as string;
    const doorFile = path.join(dir, 'door.doorlist.gz');
    const now = new Date(Date.now() - 60_000).toISOString();
    const checkins: EventFileRecord[] = [];
    for await (const records of readEventRecords(current)) {
      for (const r of records) {
        if (r.table !== 'guests') continue;
        checkins.push({ table: 'checkins', record: { uid: randomUUID(), created: now, modified: now, guest_uid: (r.record as { uid: string }).uid, session_uid: null, direction: 'in', scanned_at: now, station: 'Door laptop', undone_at: null }, bytes: 0 });
      }
    }
    await rewrite(current, doorFile, (r) => r, checkins);
    await beside(`a door key's ${checkins.length} check-ins`, () => call(input, 'POST', '/events/import', { file: doorFile, token: doorKey }));

    // duplicate_event x20 of an event with a 5,000-choice question.
    const source = await call(input, 'POST', '/events', { body: { name: 'Bench many choices', group_id: input.groupId, starts: '2026-12-01T09:00:00', ends: '2026-12-01T23:00:00', timezone: 'GMT' } });
    await call(input, 'POST', `/events/${source.id}/custom_questions`, { body: { question: 'Seat', type: 'drop_down', choices: Array.from({ length: CHOICES }, (_, i) => ({ answer: `Seat ${i}` })) } });
    await beside(`duplicate_event x${COPIES} of a ${CHOICES}-choice event`, () => call(input, 'POST', `/events/${source.id}/duplicate_event`, { body: { quantity: COPIES } }));
    return { metrics, scanned: next - input.unscannedFrom };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
