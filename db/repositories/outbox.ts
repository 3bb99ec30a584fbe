import type { Conn } from '../knex';
import { newRecord } from '../records';
import { nowIso } from '../../core/time';

export interface OutboxRow {
  id: number;
  recipient: string;
  subject: string;
  body: string;
  sent_at: string | null;
  error: string | null;
}

export async function enqueueEmail(db: Conn, mail: { recipient: string; subject: string; body: string }): Promise<number> {
  const [row] = await db('outbox').insert({ ...newRecord(), ...mail }).returning('id');
  return row.id;
}

export async function listUnsentEmails(db: Conn, limit = 50): Promise<OutboxRow[]> {
  return db<OutboxRow>('outbox').whereNull('sent_at').orderBy('id').limit(limit);
}

export async function markEmailSent(db: Conn, id: number): Promise<void> {
  const now = nowIso();
  await db('outbox').where({ id }).update({ sent_at: now, error: null, modified: now });
}

export async function markEmailFailed(db: Conn, id: number, error: string): Promise<void> {
  await db('outbox').where({ id }).update({ error, modified: nowIso() });
}
