import { randomUUID } from 'node:crypto';
import { createDb, migrateLatest } from '../db/knex';
import type { GuestInsert } from '../db/repositories/guests';
import { insertGuests } from '../db/repositories/guest-inserts';
import type { Log } from './common';

// Accented names, so searches without accents (bench/search.ts) meet thousands of guests.
const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Margaret', 'Linus', 'Radia', 'Tim', 'Zoë', 'François'];
const COMPANIES = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark', 'Wayne', 'Wonka', 'Cyberdyne', 'Tyrell', 'Müller & Söhne'];

export interface Seeded {
  groupId: number;
  eventId: number;
  guests: number;
}

export function barcodeOf(i: number): string {
  return `G${String(i).padStart(7, '0')}`;
}

export function lastNameOf(i: number): string {
  return `Lastname${i}`;
}

/** An event with `guests` guests, written through the repositories' bulk insert (not HTTP). */
export async function seedEvent(dbFile: string, guests: number, log: Log): Promise<Seeded> {
  const db = createDb(dbFile);
  try {
    await migrateLatest(db);
    const now = new Date().toISOString();
    const rec = () => ({ uid: randomUUID(), created: now, modified: now });
    const [group] = await db('groups').insert({ ...rec(), name: 'Bench organiser' }).returning('id');
    const [event] = await db('events')
      .insert({ ...rec(), group_id: group.id, name: 'Bench conference', starts: '2026-12-01T09:00:00', ends: '2026-12-01T23:00:00', timezone: 'GMT' })
      .returning('id');
    const typeIds: number[] = [];
    for (const name of ['Delegate', 'Speaker', 'Press', 'Staff']) {
      const [t] = await db('registration_types').insert({ ...rec(), event_id: event.id, name, description: '' }).returning('id');
      typeIds.push(t.id);
    }
    const CHUNK = 10_000;
    for (let start = 0; start < guests; start += CHUNK) {
      const batch: GuestInsert[] = [];
      for (let i = start; i < Math.min(guests, start + CHUNK); i++) {
        batch.push({
          registration_type_id: typeIds[i % typeIds.length],
          first_name: FIRST[i % FIRST.length],
          last_name: lastNameOf(i),
          email: `guest${i}@bench.test`,
          company: COMPANIES[i % COMPANIES.length],
          job_title: 'Engineer',
          barcode: barcodeOf(i),
        });
      }
      await db.transaction((trx) => insertGuests(trx, event.id, batch));
      log(`  seeded ${Math.min(guests, start + CHUNK)} / ${guests} guests`);
    }
    return { groupId: group.id, eventId: event.id, guests };
  } finally {
    await db.destroy();
  }
}
