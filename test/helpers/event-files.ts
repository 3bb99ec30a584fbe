import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import type { TestServer } from './server';

export const GZIP = { 'content-type': 'application/gzip' };

export function stamp(offsetSeconds = 0): string {
  return new Date(Date.now() + offsetSeconds * 1000).toISOString();
}

export function rec(extra: Record<string, unknown> = {}, ageSeconds = 3600) {
  const now = stamp(-ageSeconds);
  return { uid: randomUUID(), created: now, modified: now, ...extra };
}

/**
 * A small but complete event, written at table level: a question with two choices, a guest
 * with an answer, a session with a tag and a registration, a check-in, a promotion code linked
 * to the registration type.
 */
export async function seedFullEvent(server: TestServer, eventId: number, prefix: string) {
  const db = server.db;
  const [rt] = await db('registration_types').insert(rec({ event_id: eventId, name: `${prefix} ticket`, description: '' })).returning('id');
  const [q] = await db('custom_questions').insert(rec({ event_id: eventId, question: 'Meal?', type: 'radio' })).returning('id');
  const [fish] = await db('question_choices').insert(rec({ question_id: q.id, answer: 'Fish', position: 0 })).returning('id');
  await db('question_choices').insert(rec({ question_id: q.id, answer: 'Veggie', position: 1 }));
  const [session] = await db('sessions').insert(rec({ event_id: eventId, name: `${prefix} keynote`, starts: '2026-12-01T18:00:00', ends: '2026-12-01T19:00:00' })).returning('id');
  await db('session_tags').insert(rec({ session_id: session.id, tag: 'plenary' }));
  const [guest] = await db('guests')
    .insert(rec({ event_id: eventId, registration_type_id: rt.id, first_name: prefix, last_name: 'Guest', email: `${prefix.toLowerCase()}@x.test`, barcode: `${prefix}-1` }))
    .returning('id');
  await db('guest_answers').insert(rec({ guest_id: guest.id, question_id: q.id, choice_id: fish.id }));
  await db('session_registrations').insert(rec({ session_id: session.id, guest_id: guest.id }));
  const scanned = stamp(-600);
  await db('checkins').insert(rec({ event_id: eventId, guest_id: guest.id, direction: 'in', scanned_at: scanned, station: `${prefix} door` }));
  await db('guests').where({ id: guest.id }).update({ checked_in_at: scanned });
  const [code] = await db('promotion_codes').insert(rec({ event_id: eventId, code: `${prefix}EARLY`, discount_type: 'percent', discount_amount: 10, quantity: 5 })).returning('id');
  await db('promotion_code_registration_types').insert(rec({ promotion_code_id: code.id, registration_type_id: rt.id }));
}

export async function download(server: TestServer, eventId: number, token?: string, query = ''): Promise<Buffer> {
  const res = await fetch(`${server.baseUrl}/events/${eventId}/export${query}`, { headers: { authorization: `Token ${token ?? server.adminToken}` } });
  assert.equal(res.status, 200, await res.clone().text());
  return Buffer.from(await res.arrayBuffer());
}

export function importFile(server: TestServer, file: Buffer | string, query = '', options: { token?: string; headers?: Record<string, string> } = {}) {
  return server.request('POST', `/events/import${query}`, { rawBody: file, headers: options.headers ?? GZIP, token: options.token });
}

export interface FileLine {
  table: string;
  record: Record<string, any>;
}

/** An event file's header and record lines (the trailer left off). */
export function readFile(file: Buffer): { header: Record<string, any>; records: FileLine[] } {
  const lines = zlib.gunzipSync(file).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
  return { header: lines[0], records: lines.slice(1, -1) };
}

/** Writes a file as a well-meaning (or not) foreign writer would: records in table order, counts and checksum right. */
export function writeFile(header: Record<string, any>, records: FileLine[]): Buffer {
  const order = header.tables as string[];
  const sorted = [...records].sort((a, b) => order.indexOf(a.table) - order.indexOf(b.table));
  const counts: Record<string, number> = Object.fromEntries(order.map((t) => [t, 0]));
  for (const r of sorted) counts[r.table]++;
  const body = [{ ...header, counts }, ...sorted].map((l) => JSON.stringify(l) + '\n').join('');
  const sha256 = createHash('sha256').update(body).digest('hex');
  return zlib.gzipSync(body + JSON.stringify({ trailer: { records: sorted.length, sha256 } }) + '\n');
}

/** Every row of the tables under events, by table, for "nothing changed" comparisons. */
export async function snapshot(server: TestServer, tables: string[]): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of tables) out[table] = await server.db(table).orderBy('id');
  return out;
}
