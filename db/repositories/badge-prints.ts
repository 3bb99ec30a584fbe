import type { Knex } from 'knex';
import type { Conn, Db } from '../knex';
import { newRecord } from '../records';
import { chunks } from '../bulk';
import { GUEST_INACTIVE } from './guests';
import { nowIso, toApiDatetime } from '../../core/time';
import type { PageRequest } from '../../core/paging';
import { DEFAULT_BADGE_SIZE, type BadgeSize } from '../../core/badges';

export interface BadgePrintRow {
  id: number;
  uid: string;
  event_id: number;
  guest_id: number;
  station: string | null;
  /** `user:<id>` or `key:<id>` of this laptop; null for a print recorded elsewhere. */
  printed_by: string | null;
  printed_by_name: string | null;
  printed_at: string;
  created: string;
  modified: string;
}

export function toBadgePrint(row: BadgePrintRow) {
  return {
    id: row.id,
    uid: row.uid,
    guest_id: row.guest_id,
    station: row.station,
    printed_by: row.printed_by,
    printed_by_name: row.printed_by_name,
    printed_at: toApiDatetime(row.printed_at) as string,
    created: toApiDatetime(row.created) as string,
    modified: toApiDatetime(row.modified) as string,
  };
}

/** What a badge shows of a guest. */
export interface BadgeGuest {
  id: number;
  first_name: string;
  last_name: string;
  company: string | null;
  barcode: string;
  registration_type_name: string;
}

// ---------------------------------------------------------------------------------------
// Layout

export async function eventBadgeSize(db: Conn, eventId: number): Promise<BadgeSize> {
  const row: { badge_size: BadgeSize } | undefined = await db('events').where({ id: eventId }).first('badge_size');
  return row?.badge_size ?? DEFAULT_BADGE_SIZE;
}

/** The size is a setting of this laptop's copy of the event: it does not move the event's `modified`. */
export async function setEventBadgeSize(db: Conn, eventId: number, size: BadgeSize): Promise<void> {
  await db('events').where({ id: eventId }).update({ badge_size: size });
}

// ---------------------------------------------------------------------------------------
// Guests to print

function badgeGuests(db: Conn, eventId: number) {
  return db('guests as g')
    .join('registration_types as rt', 'rt.id', 'g.registration_type_id')
    .where('g.event_id', eventId)
    .select('g.id', 'g.first_name', 'g.last_name', 'g.company', 'g.barcode', 'rt.name as registration_type_name');
}

/** Of `ids`, those that are no guest of the event (another event's, another group's or none). */
export async function idsNotInEvent(db: Conn, eventId: number, ids: number[]): Promise<number[]> {
  const found = new Set<number>();
  for (const part of chunks(ids, 500)) {
    for (const id of (await db('guests').where({ event_id: eventId }).whereIn('id', part).pluck('id')) as number[]) found.add(id);
  }
  return ids.filter((id) => !found.has(id));
}

/** These guests of the event, in the order asked. */
export async function badgeGuestsByIds(db: Conn, eventId: number, ids: number[]): Promise<BadgeGuest[]> {
  const rows = (await badgeGuests(db, eventId).whereIn('g.id', ids)) as BadgeGuest[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((g): g is BadgeGuest => g !== undefined);
}

export interface BadgeFilter {
  registrationTypeId?: number;
  /** Only guests with no badge printed yet. */
  notPrinted?: boolean;
}

/** The next page of active guests the filter selects, after guest id `afterId`, in id order. */
export async function badgeGuestsPage(db: Conn, eventId: number, filter: BadgeFilter, afterId: number, limit: number): Promise<BadgeGuest[]> {
  const q = filtered(db, badgeGuests(db, eventId).where('g.id', '>', afterId), filter);
  return (await q.orderBy('g.id').limit(limit)) as BadgeGuest[];
}

/** How many active guests a filter selects. */
export async function countBadgeGuests(db: Conn, eventId: number, filter: BadgeFilter): Promise<number> {
  const row = await filtered(db, db('guests as g').where('g.event_id', eventId), filter).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

function filtered<Q extends Knex.QueryBuilder>(db: Conn, q: Q, filter: BadgeFilter): Q {
  q.whereNot('g.objstatus', GUEST_INACTIVE);
  if (filter.registrationTypeId !== undefined) q.where('g.registration_type_id', filter.registrationTypeId);
  if (filter.notPrinted) q.whereNotExists((s) => s.select(db.raw('1')).from('badge_prints as p').whereRaw('p.guest_id = g.id'));
  return q;
}

export async function registrationTypeOfEvent(db: Conn, eventId: number, id: number): Promise<boolean> {
  return (await db('registration_types').where({ id, event_id: eventId }).first('id')) !== undefined;
}

// ---------------------------------------------------------------------------------------
// The print log

export interface PrintBy {
  station: string | null;
  /** `user:<id>` or `key:<id>`. */
  printedBy: string;
  printedByName: string | null;
}

/** The username or key name behind `user:<id>` / `key:<id>`, as other laptops will read it. */
export async function printerName(db: Conn, kind: 'user' | 'key' | 'venue' | 'door-pass', id: number): Promise<string | null> {
  if (kind === 'venue' || kind === 'door-pass') return null;
  const row: { name: string } | undefined =
    kind === 'user' ? await db('users').where({ id }).first('username as name') : await db('api_keys').where({ id }).first('name');
  return row?.name ?? null;
}

/** One print record per guest, all at the same time, in one transaction. */
export async function recordPrints(db: Db, eventId: number, guestIds: number[], by: PrintBy): Promise<void> {
  if (guestIds.length === 0) return;
  const now = nowIso();
  const rows = guestIds.map((guestId) => ({
    ...newRecord(now),
    event_id: eventId,
    guest_id: guestId,
    station: by.station,
    printed_by: by.printedBy,
    printed_by_name: by.printedByName,
    printed_at: now,
  }));
  await db.transaction(async (trx) => {
    for (const part of chunks(rows, 200)) await trx('badge_prints').insert(part);
  });
}

export async function listBadgePrints(db: Conn, eventId: number, filter: { guestId?: number }, page: PageRequest) {
  const base = db<BadgePrintRow>('badge_prints').where({ event_id: eventId });
  if (filter.guestId !== undefined) base.where({ guest_id: filter.guestId });
  if (page.modifiedSince) base.where('modified', '>=', page.modifiedSince);
  const [{ count }] = await base.clone().count({ count: '*' });
  const rows = await base.clone().orderBy('id').limit(page.limit).offset(page.offset);
  return { count: Number(count), rows: rows as BadgePrintRow[] };
}
