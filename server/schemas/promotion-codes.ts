import { z } from './zod';
import { boolean, choice, datetime, integer, nonNegativeInteger, number, pathId, requiredText } from './fields';
import { MSG } from '../../core/messages';
import { spanErrors } from '../../core/spans';
import { EventParams } from './events';
import { ListQuery } from '../http/pagination';

export const DISCOUNT_TYPES = ['flat', 'percent'] as const;
export type DiscountType = (typeof DISCOUNT_TYPES)[number];
// The column is decimal(12, 2).
export const MAX_DISCOUNT_AMOUNT = 9999999999.99;

const discountType = choice(DISCOUNT_TYPES, MSG.invalidDiscountType);

/** A number or a numeric string, at least 0, with at most two decimals (it is money or a percentage). */
const discountAmount = number()
  .pipe(
    z
      .number()
      .min(0, { error: 'Ensure this value is greater than or equal to 0.' })
      .max(MAX_DISCOUNT_AMOUNT, { error: `Ensure this value is less than or equal to ${MAX_DISCOUNT_AMOUNT}.` })
      .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, { error: MSG.decimalPlaces }),
  )
  .openapi({ type: 'number', minimum: 0, maximum: MAX_DISCOUNT_AMOUNT, multipleOf: 0.01, example: 10, description: 'A number or a numeric string, at most two decimals; answered as a two-decimal string' });

const registrationTypes = z
  .array(integer(), { error: (issue) => (issue.input === null ? MSG.notNull : MSG.invalidList) })
  .max(1000)
  .nullable()
  .transform((ids) => [...new Set(ids ?? [])]);

const optionalDatetime = datetime().nullable();

export const PromotionCodeCreate = z
  .object({
    code: requiredText(64),
    discount_type: discountType,
    discount_amount: discountAmount,
    quantity: nonNegativeInteger(),
    starts: optionalDatetime.default(null),
    ends: optionalDatetime.default(null),
    registration_types: registrationTypes.default([]),
    available_only: boolean().default(false),
  })
  .openapi('PromotionCodeCreate');

/** Every field optional; rules across fields are checked on the merged record by the handler. */
export const PromotionCodeUpdate = z
  .object({
    code: requiredText(64).optional(),
    discount_type: discountType.optional(),
    discount_amount: discountAmount.optional(),
    quantity: nonNegativeInteger().optional(),
    starts: optionalDatetime.optional(),
    ends: optionalDatetime.optional(),
    registration_types: registrationTypes.optional(),
    available_only: boolean().optional(),
  })
  .openapi('PromotionCodeUpdate');

// An id that is no id at all answers "Promotion code not found." like any unknown one.
export const PromotionCodeParams = EventParams.extend({ promotion_code_id: pathId.catch(0).openapi({ type: 'integer', minimum: 1, maximum: 2147483647 }) });

export const PromotionCodeListQuery = ListQuery;

export const PromotionCode = z
  .object({
    id: z.number().int(),
    event: z.number().int(),
    code: z.string(),
    discount_type: discountType,
    discount_amount: z.string().openapi({ example: '10.00' }),
    quantity: z.number().int(),
    used: z.number().int(),
    starts: z.string().nullable(),
    ends: z.string().nullable(),
    registration_types: z.array(z.number().int()),
    available_only: z.boolean(),
    created: z.string(),
    modified: z.string(),
  })
  .openapi('PromotionCode');

/** The values the cross-field rules look at, after merging an update with the stored record. */
export interface PromotionCodeRules {
  discount_type: string;
  discount_amount: number;
  quantity: number;
  used: number;
  starts: string | null;
  ends: string | null;
}

/** Rules between fields, shared by create and update: field errors, empty when the record is valid. */
export function promotionCodeRuleErrors(values: PromotionCodeRules): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (values.discount_type === 'percent' && values.discount_amount > 100) errors.discount_amount = [MSG.percentOver100];
  Object.assign(errors, spanErrors('promotionCode', values));
  if (values.quantity < values.used) errors.quantity = [MSG.quantityBelowUsed(values.used)];
  return errors;
}

export type PromotionCodeCreateInput = z.output<typeof PromotionCodeCreate>;
export type PromotionCodeUpdateInput = z.output<typeof PromotionCodeUpdate>;
