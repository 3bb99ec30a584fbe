import type { EventStats } from '../../renderer/src/stats';
import type { DoorServer } from './door-server';

/** Any server the tests drive through the API: in-process, or `npm run serve` in its own process. */
type ApiServer = Pick<DoorServer, 'must'>;

export interface SeededGuest {
  id: number;
  first_name: string;
  last_name: string;
  email: string;
  company?: string;
  barcode: string;
  nfc_tag?: string;
}

export interface Seed {
  groupId: number;
  eventId: number;
  eventName: string;
  types: { general: number; vip: number };
  guests: Record<string, SeededGuest>;
}

const GUESTS: { key: string; first_name: string; last_name: string; company: string; barcode: string; nfc_tag?: string; vip?: boolean; inactive?: boolean }[] = [
  { key: 'ada', first_name: 'Ada', last_name: 'Lovelace', company: 'Analytical Engines', barcode: 'ADA-0001', nfc_tag: '04A1B2C3D4', vip: true },
  { key: 'grace', first_name: 'Grace', last_name: 'Hopper', company: 'US Navy', barcode: 'GRACE-0002' },
  { key: 'alan', first_name: 'Alan', last_name: 'Turing', company: 'Bletchley Park', barcode: 'ALAN-0003', inactive: true },
  { key: 'katherine', first_name: 'Katherine', last_name: 'Johnson', company: 'NASA', barcode: 'KJ-0004', vip: true },
  { key: 'edsger', first_name: 'Edsger', last_name: 'Dijkstra', company: 'Eindhoven University', barcode: 'ED-0005' },
  { key: 'margaret', first_name: 'Margaret', last_name: 'Hamilton', company: 'MIT Instrumentation Lab', barcode: 'MH-0006' },
  { key: 'tim', first_name: 'Tim', last_name: 'Berners-Lee', company: 'CERN', barcode: 'TBL-0007' },
  { key: 'barbara', first_name: 'Barbara', last_name: 'Liskov', company: 'MIT', barcode: 'BL-0008' },
  { key: 'donald', first_name: 'Donald', last_name: 'Knuth', company: 'Stanford', barcode: 'DK-0009' },
  { key: 'frances', first_name: 'Frances', last_name: 'Allen', company: 'IBM', barcode: 'FA-0010', nfc_tag: '04F1A2B3C4', vip: true },
  { key: 'john', first_name: 'John', last_name: 'McCarthy', company: 'Stanford', barcode: 'JM-0011' },
  { key: 'radia', first_name: 'Radia', last_name: 'Perlman', company: 'DEC', barcode: 'RP-0012' },
];

/** One organiser's event with two registration types and a dozen guests, made through the API. */
export async function seedEvent(server: ApiServer, eventName = 'Launch Night'): Promise<Seed> {
  const group = await server.must<{ id: number }>(201, 'POST', '/groups', { name: 'Acme Events', email: 'office@acme.test' });
  const event = await server.must<{ id: number }>(201, 'POST', '/events', {
    name: eventName,
    starts: '2026-12-01T18:00',
    ends: '2026-12-01T23:30',
    timezone: 'Europe/Amsterdam',
    group_id: group.id,
  });
  const base = `/events/${event.id}`;
  const general = await server.must<{ id: number }>(201, 'POST', `${base}/registration_types`, { type: 'ticket', name: 'General', description: 'Standing' });
  const vip = await server.must<{ id: number }>(201, 'POST', `${base}/registration_types`, { type: 'ticket', name: 'VIP', description: 'Backstage' });
  const guests: Record<string, SeededGuest> = {};
  for (const g of GUESTS) {
    const email = `${g.first_name.toLowerCase()}@example.test`;
    const fields = {
      registration_type: g.vip ? vip.id : general.id,
      first_name: g.first_name,
      last_name: g.last_name,
      email,
      company: g.company,
      barcode: g.barcode,
      ...(g.nfc_tag ? { nfc_tag: g.nfc_tag } : {}),
    };
    const created = await server.must<{ id: number }>(201, 'POST', `${base}/guests`, fields);
    if (g.inactive) await server.must(200, 'PUT', `${base}/guests/${created.id}`, { objstatus: 2 });
    guests[g.key] = { id: created.id, ...fields };
  }
  return { groupId: group.id, eventId: event.id, eventName, types: { general: general.id, vip: vip.id }, guests };
}

/** The event's figures as the door screen's counters poll them (GET /events/:id/stats). */
export function statsOf(server: ApiServer, eventId: number): Promise<EventStats> {
  return server.must<EventStats>(200, 'GET', `/events/${eventId}/stats`);
}

/** Accepted check-ins of the event (undone ones excluded), counted through the API. */
export async function checkinsOf(server: ApiServer, eventId: number, guestId?: number): Promise<any[]> {
  const body = await server.must<{ results: any[] }>(200, 'GET', `/events/${eventId}/checkins?page_size=1000${guestId ? `&guest_id=${guestId}` : ''}`);
  return body.results.filter((c) => !c.undone_at);
}

/**
 * The event's guests and those inside now, read from the guest list: a second source beside the
 * stats the door screen's counters come from.
 */
export async function guestCounts(server: DoorServer, eventId: number): Promise<{ total: number; checkedIn: number }> {
  const body = await server.must<{ results: { checked_in: boolean }[] }>(200, 'GET', `/events/${eventId}/guests?page_size=1000`);
  return { total: body.results.length, checkedIn: body.results.filter((g) => g.checked_in).length };
}
