import { toApiDatetime } from '../../core/time';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestServer } from './server';

export interface SeedGuest {
  first_name?: string;
  last_name?: string;
  email?: string;
  company?: string | null;
  barcode: string;
  nfc_tag?: string | null;
  objstatus?: number;
}

/**
 * Registration types and guests written straight to the test database: the check-in tests
 * need guests to scan, not the guest API (which has its own tests).
 */
export async function seedRegistrationType(server: TestServer, eventId: number, name = 'General admission'): Promise<number> {
  const now = new Date().toISOString();
  const [row] = await server
    .db('registration_types')
    .insert({ uid: randomUUID(), created: now, modified: now, event_id: eventId, name, description: '' })
    .returning('id');
  return row.id;
}

export async function seedGuests(server: TestServer, eventId: number, registrationTypeId: number, guests: SeedGuest[]): Promise<number[]> {
  const now = new Date().toISOString();
  const ids: number[] = [];
  for (let i = 0; i < guests.length; i += 200) {
    const rows = guests.slice(i, i + 200).map((g) => ({
      uid: randomUUID(),
      created: now,
      modified: now,
      event_id: eventId,
      registration_type_id: registrationTypeId,
      first_name: g.first_name ?? 'Ada',
      last_name: g.last_name ?? 'Lovelace',
      email: g.email ?? `${g.barcode.toLowerCase()}@guest.test`,
      company: g.company ?? null,
      barcode: g.barcode,
      nfc_tag: g.nfc_tag ?? null,
      objstatus: g.objstatus ?? 1,
    }));
    const inserted = await server.db('guests').insert(rows).returning('id');
    ids.push(...inserted.map((r: { id: number }) => r.id));
  }
  return ids;
}

/** A session over the sessions API; returns its id. */
export async function createSession(server: TestServer, eventId: number, fields: Record<string, unknown> = {}): Promise<number> {
  const res = await server.post(`/events/${eventId}/sessions`, { name: 'Keynote', starts: '2026-12-01T18:00', ends: '2026-12-01T19:00', ...fields });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

export function scan(server: TestServer, eventId: number, body: Record<string, unknown>, token?: string) {
  return server.post(`/events/${eventId}/checkins`, body, { token });
}

/** The guest's stored door state. */
export async function guestState(server: TestServer, guestId: number): Promise<{ checked_in_at: string | null; modified: string }> {
  const row = await server.db('guests').where({ id: guestId }).first('checked_in_at', 'modified');
  // As the API writes it: PostgreSQL's timestamps come back with milliseconds and a zone.
  return { checked_in_at: toApiDatetime(row.checked_in_at), modified: row.modified };
}

export async function countCheckins(server: TestServer, eventId: number): Promise<number> {
  const [{ n }] = await server.db('checkins').where({ event_id: eventId }).count({ n: '*' });
  return Number(n);
}
