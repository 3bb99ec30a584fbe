import { z } from './zod';
import { boolean, choice, datetime, integer, number, pathId, requiredBlankableText, requiredText } from './fields';
import { MSG, REGISTRATION_TYPE_KINDS } from '../../core/messages';
import { ListQuery } from '../http/pagination';

/** A path id of a child record; anything else becomes 0, which matches no record. */
const recordId = z
  .string()
  .transform((v) => (/^\d{1,9}$/.test(v) ? Number(v) : 0))
  .openapi({ type: 'integer', minimum: 1, maximum: 999999999 });

// The largest value decimal(12, 2) holds.
const MAX_PRICE = 9_999_999_999.99;

/** A price with at most two decimal places; a negative one is left for the database to refuse. */
const price = number().pipe(
  z
    .number()
    .refine((v) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6, { error: MSG.priceDecimals })
    .refine((v) => Math.abs(v) <= MAX_PRICE, { error: MSG.priceTooLarge }),
).openapi({ multipleOf: 0.01, minimum: -MAX_PRICE, maximum: MAX_PRICE, description: 'At most two decimal places (a numeric string is taken too); a negative price is refused as a data-integrity error.' });

// minorder, maxorder and quantity are only typed here: their rules (not negative,
// minorder <= maxorder) are CHECK constraints, reported as the spec's data-integrity error.
export const RegistrationTypeCreate = z
  .object({
    type: choice(REGISTRATION_TYPE_KINDS, MSG.invalidRegistrationTypeKind),
    name: requiredText(255),
    description: requiredBlankableText(5000),
    starts: datetime().nullish(),
    ends: datetime().nullish(),
    minorder: integer().nullish(),
    maxorder: integer().nullish(),
    price: price.nullish(),
    quantity: integer().nullish(),
    door: boolean().default(false),
    online: boolean().default(false),
    attention: boolean().default(false),
  })
  .openapi('RegistrationTypeCreate');

/** Every field of create, all optional and without defaults: what is left out stays as it is. */
export const RegistrationTypeUpdate = z
  .object({
    type: choice(REGISTRATION_TYPE_KINDS, MSG.invalidRegistrationTypeKind).optional(),
    name: requiredText(255).optional(),
    description: requiredBlankableText(5000).optional(),
    starts: datetime().nullish(),
    ends: datetime().nullish(),
    minorder: integer().nullish(),
    maxorder: integer().nullish(),
    price: price.nullish(),
    quantity: integer().nullish(),
    door: boolean().optional(),
    online: boolean().optional(),
    attention: boolean().optional(),
  })
  .openapi('RegistrationTypeUpdate');

// Any id that is not a stored one answers the resource's own 404 body.
export const RegistrationTypeParams = z.object({ event_id: pathId, registration_type_id: recordId });

export const RegistrationTypeListQuery = ListQuery;

export const RegistrationType = z
  .object({
    id: z.number().int(),
    event: z.number().int(),
    type: z.enum(REGISTRATION_TYPE_KINDS),
    name: z.string(),
    description: z.string(),
    starts: z.string().nullable(),
    ends: z.string().nullable(),
    minorder: z.number().int().nullable(),
    maxorder: z.number().int().nullable(),
    price: z.string().nullable().openapi({ example: '12.50' }),
    quantity: z.number().int().nullable(),
    door: z.boolean(),
    online: z.boolean(),
    attention: z.boolean().openapi({ description: 'The door must stop for every guest of this type' }),
    source: z.string(),
    objstatus: z.string().openapi({ example: '1' }),
    created: z.string(),
    modified: z.string(),
  })
  .openapi('RegistrationType');

export type RegistrationTypeCreateInput = z.output<typeof RegistrationTypeCreate>;
export type RegistrationTypeUpdateInput = z.output<typeof RegistrationTypeUpdate>;
