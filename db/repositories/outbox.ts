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

/**
 * Claims an unsent e-mail for `claimMs` by compare-and-set: of several processes delivering
 * the outbox, exactly one gets true and sends it. A claim that ran out (its process died
 * before marking the e-mail sent) may be taken again.
 */
export async function claimEmail(db: Conn, id: number, claimMs: number, now = new Date()): Promise<boolean> {
  const nowText = now.toISOString();
  const claimed = await db('outbox')
    .where({ id })
    .whereNull('sent_at')
    .andWhere((q) => q.whereNull('claimed_until').orWhere('claimed_until', '<=', nowText))
    .update({ claimed_until: new Date(now.getTime() + claimMs).toISOString() });
  return claimed === 1;
}

/** Gives a claim back (delivery failed), so the next round tries the e-mail again. */
export async function markEmailFailed(db: Conn, id: number, error: string): Promise<void> {
  await db('outbox').where({ id }).update({ error, claimed_until: null, modified: nowIso() });
}

export async function markEmailSent(db: Conn, id: number): Promise<void> {
  const now = nowIso();
  await db('outbox').where({ id }).update({ sent_at: now, error: null, modified: now });
}
