/**
 * A promotion code's create and update, checked inside the write's transaction: the rules
 * between its fields (server/schemas/promotion-codes.ts) on the merged record, its `used`
 * count as it stands when the change is written.
 */
import type { Db } from '../../db/knex';
import type { EventRow } from '../../db/repositories/events';
import { findPromotionCode, insertPromotionCode, updatePromotionCode } from '../../db/repositories/promotion-codes';
import { writeTransaction } from '../../db/write-transaction';
import { NotFoundError, ValidationError } from '../../core/errors';
import { MSG } from '../../core/messages';
import { promotionCodeRuleErrors, type PromotionCodeCreateInput, type PromotionCodeRules, type PromotionCodeUpdateInput } from '../schemas/promotion-codes';

function checkRules(values: PromotionCodeRules): void {
  const errors = promotionCodeRuleErrors(values);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/** A new promotion code of the event; its id. */
export function createPromotionCode(db: Db, event: EventRow, body: PromotionCodeCreateInput): Promise<number> {
  const { registration_types: registrationTypes, ...fields } = body;
  checkRules({ ...fields, used: 0 });
  return writeTransaction(db, (trx) => insertPromotionCode(trx, event.id, fields, registrationTypes));
}

/** Changes the given fields of the event's promotion code (404 when it has none of that id). */
export function changePromotionCode(db: Db, event: EventRow, codeId: number, body: PromotionCodeUpdateInput): Promise<void> {
  const { registration_types: registrationTypes, ...fields } = body;
  return writeTransaction(db, async (trx) => {
    const code = await findPromotionCode(trx, event.id, codeId);
    if (!code) throw new NotFoundError(MSG.promotionCodeNotFound);
    checkRules({
      discount_type: fields.discount_type ?? code.discount_type,
      discount_amount: fields.discount_amount ?? Number(code.discount_amount),
      quantity: fields.quantity ?? code.quantity,
      used: code.used,
      starts: fields.starts === undefined ? code.starts : fields.starts,
      ends: fields.ends === undefined ? code.ends : fields.ends,
    });
    await updatePromotionCode(trx, event.id, code.id, fields, registrationTypes);
  });
}
