import type { Conn } from '../knex';
import { newRecord, toBool } from '../records';
import { isIntegrityViolation } from '../errors';
import { nowIso, toApiDatetime } from '../../core/time';
import { ValidationError } from '../../core/errors';
import { MSG } from '../../core/messages';

export interface RegistrationTypeRow {
  id: number;
  uid: string;
  event_id: number;
  type: string;
  name: string;
  description: string;
  starts: string | null;
  ends: string | null;
  minorder: number | null;
  maxorder: number | null;
  price: number | string | null;
  quantity: number | null;
  door: number | boolean;
  online: number | boolean;
  attention: number | boolean;
  source: string;
  objstatus: number;
  created: string;
  modified: string;
}

export type RegistrationTypeFields = Pick<RegistrationTypeRow, 'type' | 'name' | 'description'> &
  Partial<Pick<RegistrationTypeRow, 'starts' | 'ends' | 'minorder' | 'maxorder' | 'price' | 'quantity'>> & { door: boolean; online: boolean; attention?: boolean };

/** Money as the API shows it: a two-decimal string ("12.50"). */
function priceString(value: number | string | null): string | null {
  return value == null ? null : Number(value).toFixed(2);
}

export function toRegistrationType(row: RegistrationTypeRow) {
  return {
    id: row.id,
    event: row.event_id,
    type: row.type as 'ticket' | 'donation',
    name: row.name,
    description: row.description,
    starts: toApiDatetime(row.starts),
    ends: toApiDatetime(row.ends),
    minorder: row.minorder,
    maxorder: row.maxorder,
    price: priceString(row.price),
    quantity: row.quantity,
    door: toBool(row.door),
    online: toBool(row.online),
    attention: toBool(row.attention),
    source: row.source,
    objstatus: String(row.objstatus),
    created: toApiDatetime(row.created) as string,
    modified: toApiDatetime(row.modified) as string,
  };
}

export async function findRegistrationType(db: Conn, eventId: number, id: number): Promise<RegistrationTypeRow | undefined> {
  return db<RegistrationTypeRow>('registration_types').where({ event_id: eventId, id }).first();
}

export async function listRegistrationTypes(db: Conn, eventId: number, page: { limit: number; offset: number; modifiedSince?: string }) {
  const base = db<RegistrationTypeRow>('registration_types').where({ event_id: eventId });
  if (page.modifiedSince) base.where('modified', '>=', page.modifiedSince);
  const [{ count }] = await base.clone().count({ count: '*' });
  const rows = (await base.clone().orderBy('id').limit(page.limit).offset(page.offset)) as RegistrationTypeRow[];
  return { count: Number(count), rows };
}

/**
 * The database's CHECK rules (nothing negative, minorder <= maxorder) decide what is
 * coherent; their refusal is the spec's data-integrity error.
 */
export async function insertRegistrationType(db: Conn, eventId: number, fields: RegistrationTypeFields): Promise<number> {
  try {
    const [row] = await db('registration_types')
      .insert({ ...newRecord(), event_id: eventId, ...fields })
      .returning('id');
    return row.id;
  } catch (err) {
    if (isIntegrityViolation(err)) throw new ValidationError({ details: [MSG.registrationTypeIntegrity] });
    throw err;
  }
}

/**
 * Changes the fields given (undefined leaves one as it is); false when the event has no such
 * type. The same CHECK rules as on create decide, with the same data-integrity error.
 */
export async function updateRegistrationType(db: Conn, eventId: number, id: number, changes: Partial<RegistrationTypeFields>): Promise<boolean> {
  const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  try {
    const updated = await db('registration_types').where({ event_id: eventId, id }).update({ ...set, modified: nowIso() });
    return updated > 0;
  } catch (err) {
    if (isIntegrityViolation(err)) throw new ValidationError({ details: [MSG.registrationTypeIntegrity] });
    throw err;
  }
}
