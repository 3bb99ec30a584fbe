import type { Conn, Trx } from '../knex';
import { newRecord, toBool } from '../records';
import { isUniqueViolation, uniqueKey } from '../errors';
import { nowIso, toApiDatetime } from '../../core/time';
import type { PageRequest } from '../../core/paging';
import { ValidationError } from '../../core/errors';
import { MSG } from '../../core/messages';

export interface PromotionCodeRow {
  id: number;
  uid: string;
  event_id: number;
  code: string;
  discount_type: string;
  discount_amount: number | string;
  quantity: number;
  used: number;
  starts: string | null;
  ends: string | null;
  available_only: number | boolean;
  created: string;
  modified: string;
}

/** A code with the registration types it is limited to (ids, ascending). */
export interface PromotionCodeRecord extends PromotionCodeRow {
  registration_types: number[];
}

export interface PromotionCodeFields {
  code: string;
  discount_type: string;
  discount_amount: number;
  quantity: number;
  starts: string | null;
  ends: string | null;
  available_only: boolean;
}

export function toPromotionCode(row: PromotionCodeRecord) {
  return {
    id: row.id,
    event: row.event_id,
    code: row.code,
    discount_type: row.discount_type,
    discount_amount: Number(row.discount_amount).toFixed(2),
    quantity: row.quantity,
    used: row.used,
    starts: toApiDatetime(row.starts),
    ends: toApiDatetime(row.ends),
    registration_types: row.registration_types,
    available_only: toBool(row.available_only),
    created: toApiDatetime(row.created),
    modified: toApiDatetime(row.modified),
  };
}

async function withRegistrationTypes(db: Conn, rows: PromotionCodeRow[]): Promise<PromotionCodeRecord[]> {
  if (rows.length === 0) return [];
  const links = (await db('promotion_code_registration_types')
    .whereIn('promotion_code_id', rows.map((r) => r.id))
    .orderBy(['promotion_code_id', 'registration_type_id'])
    .select('promotion_code_id', 'registration_type_id')) as { promotion_code_id: number; registration_type_id: number }[];
  const byCode = new Map<number, number[]>();
  for (const link of links) {
    const list = byCode.get(link.promotion_code_id) ?? [];
    list.push(link.registration_type_id);
    byCode.set(link.promotion_code_id, list);
  }
  return rows.map((row) => ({ ...row, registration_types: byCode.get(row.id) ?? [] }));
}

/** A code of the event; the caller has already scoped the event. */
export async function findPromotionCode(db: Conn, eventId: number, id: number): Promise<PromotionCodeRecord | undefined> {
  const row = await db<PromotionCodeRow>('promotion_codes').where({ id, event_id: eventId }).first();
  if (!row) return undefined;
  const [record] = await withRegistrationTypes(db, [row]);
  return record;
}

export async function listPromotionCodes(db: Conn, eventId: number, page: PageRequest) {
  const base = db<PromotionCodeRow>('promotion_codes').where({ event_id: eventId });
  if (page.modifiedSince) base.where('modified', '>=', page.modifiedSince);
  const [{ count }] = await base.clone().count({ count: '*' });
  const rows = (await base.clone().orderBy('id').limit(page.limit).offset(page.offset)) as PromotionCodeRow[];
  return { count: Number(count), rows: await withRegistrationTypes(db, rows) };
}

/** Refuses registration type ids that are not the event's, with the spec's guest wording. */
async function requireEventRegistrationTypes(trx: Trx, eventId: number, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await trx('registration_types').where({ event_id: eventId }).whereIn('id', ids).pluck('id');
  if (found.length !== ids.length) throw ValidationError.field('registration_types', MSG.eventHasNoRegistrationType);
}

async function writeRegistrationTypes(trx: Trx, eventId: number, codeId: number, ids: number[]): Promise<void> {
  await requireEventRegistrationTypes(trx, eventId, ids);
  await trx('promotion_code_registration_types').where({ promotion_code_id: codeId }).delete();
  if (ids.length === 0) return;
  const now = nowIso();
  await trx('promotion_code_registration_types').insert(ids.map((id) => ({ ...newRecord(now), promotion_code_id: codeId, registration_type_id: id })));
}

const CODE_KEY = uniqueKey('promotion_codes', ['event_id', 'code']);

/** The unique index decides between concurrent writers; its refusal becomes the field error. */
async function uniqueCode<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, CODE_KEY)) throw ValidationError.field('code', MSG.promotionCodeExists);
    throw err;
  }
}

/** Inserts the code and its registration types; run it inside a transaction. */
export async function insertPromotionCode(trx: Trx, eventId: number, fields: PromotionCodeFields, registrationTypes: number[]): Promise<number> {
  const [row] = await uniqueCode(() => trx('promotion_codes').insert({ ...newRecord(), event_id: eventId, ...fields }).returning('id'));
  await writeRegistrationTypes(trx, eventId, row.id, registrationTypes);
  return row.id;
}

/** Updates the given fields; `registrationTypes`, when given, replaces the list. Run it inside a transaction. */
export async function updatePromotionCode(
  trx: Trx,
  eventId: number,
  id: number,
  fields: Partial<PromotionCodeFields>,
  registrationTypes?: number[],
): Promise<void> {
  await uniqueCode(() => trx('promotion_codes').where({ id, event_id: eventId }).update({ ...fields, modified: nowIso() }));
  if (registrationTypes !== undefined) await writeRegistrationTypes(trx, eventId, id, registrationTypes);
}

export async function deletePromotionCode(db: Conn, eventId: number, id: number): Promise<boolean> {
  return (await db('promotion_codes').where({ id, event_id: eventId }).delete()) > 0;
}
