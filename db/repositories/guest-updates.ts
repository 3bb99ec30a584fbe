import type { Conn } from '../knex';
import { fileSearchTerms, forgetSearchTerms } from '../search-index';
import { batchSearchTerms, type SearchableFields } from '../search-terms';
import { dialectOf } from '../dialect';
import { codeRefusal } from './guest-codes';
import { insertAnswers } from './guest-inserts';
import { survivingFailure, writeTransaction } from '../write-transaction';
import { nowIso } from '../../core/time';
import type { GuestRow, GuestUpdateFields } from './guests';

/** A guest's change: its row, its search terms and the answers sent. */

/** A guest as its search terms need it. */
export type Searchable = SearchableFields & { id: number };

/**
 * Guests of one event whose searched fields changed: their terms are filed again (in the
 * caller's transaction), a merge's whole turn in two statements rather than two a guest.
 */
export async function replaceSearchTerms(trx: Conn, eventId: number, guests: readonly Searchable[]): Promise<void> {
  if (guests.length === 0) return;
  const ids = guests.map((g) => g.id);
  await forgetSearchTerms(trx, ids);
  await fileSearchTerms(trx, eventId, batchSearchTerms(guests), ids);
}

/**
 * Updates the given fields; answers sent replace the guest's answers to those questions.
 * Keeps the search terms in step, all in one transaction (the caller's, when given one, where
 * its codes were checked: server/services/guest-writes.ts). A code the unique index refuses
 * answers the spec's 400.
 */
export async function updateGuest(db: Conn, guest: GuestRow, fields: GuestUpdateFields): Promise<void> {
  const { answers, ...columns } = fields;
  const now = nowIso();
  await writeTransaction(db, async (trx) => {
    try {
      // The transaction must outlive a refused update, to look up who holds the code.
      await survivingFailure(trx, (t) => t('guests').where({ id: guest.id }).update({ ...columns, modified: now }));
    } catch (err) {
      throw (await codeRefusal(trx, err, guest.event_id, columns, 'update', guest.id)) ?? err;
    }
    if (SEARCHED_FIELDS.some((k) => k in columns)) await replaceSearchTerms(trx, guest.event_id, [{ ...guest, ...columns, id: guest.id }]);
    if (answers) {
      const questionIds = [...new Set(answers.map((a) => a.question_id))];
      // By the guest's answers, not by every answer to the question.
      await dialectOf(trx).whereInUnindexed(trx('guest_answers').where({ guest_id: guest.id }), 'question_id', questionIds).delete();
      await insertAnswers(trx, answers.map((a) => ({ ...a, guest_id: guest.id })), now);
    }
  });
}

const SEARCHED_FIELDS = ['first_name', 'last_name', 'email', 'company', 'barcode', 'nfc_tag'] as const;
