import { z } from './zod';
import { boolean, choice, integer, optionalText, pathId } from './fields';
import { EventParams } from './events';
import { ListQuery } from '../http/pagination';
import { MSG } from '../../core/messages';
import { BADGE_MSG, BADGE_SIZES, MAX_BADGE_IDS, MAX_BADGES_PER_PDF } from '../../core/badges';

export const BadgeLayoutUpdate = z.object({ size: choice(BADGE_SIZES, BADGE_MSG.invalidSize) }).openapi('BadgeLayoutUpdate');

export const BadgeLayout = z
  .object({ size: z.enum(BADGE_SIZES), sizes: z.array(z.enum(BADGE_SIZES)) })
  .openapi('BadgeLayout', { description: 'The label size badges print on, and the sizes there are.' });

export const BadgeGuestParams = EventParams.extend({ guest_id: pathId });

/** Where the badge is printed, as check-ins name their station. */
const station = optionalText(128).openapi({ description: 'The station printing it (kept in the print log).' });

export const BadgeQuery = z.object({ station });

const ID = /^\d{1,10}$/;

/**
 * `guest_ids` as the query sends it (`1,2,3`, or the key repeated) or as a JSON list:
 * distinct ids in the order given, at most MAX_BADGE_IDS.
 */
const guestIds = z
  .preprocess(
    (value) => {
      const parts = Array.isArray(value) ? value.flatMap((v) => (typeof v === 'string' ? v.split(',') : [v])) : typeof value === 'string' ? value.split(',') : value;
      return Array.isArray(parts) ? parts.map((p) => (typeof p === 'string' ? p.trim() : p)) : parts;
    },
    z
      .array(z.union([z.number(), z.string()]), { error: BADGE_MSG.invalidIds })
      .refine((ids) => !(ids.length === 1 && ids[0] === ''), { error: MSG.blank, abort: true })
      .refine((ids) => ids.length <= MAX_BADGE_IDS, { error: BADGE_MSG.tooManyIds, abort: true })
      .refine((ids) => ids.every((id) => (typeof id === 'number' ? Number.isInteger(id) && id >= 1 && id <= 2147483647 : ID.test(id) && Number(id) >= 1 && Number(id) <= 2147483647)), {
        error: BADGE_MSG.invalidIds,
      })
      .transform((ids) => [...new Set(ids.map(Number))]),
  )
  .openapi({ type: 'string', example: '1,2,3', description: `Guest ids, comma-separated (at most ${MAX_BADGE_IDS}).` });

/**
 * Which guests a sheet of badges is for: `guest_ids`, or every active guest of a
 * `registration_type` and/or everyone with no badge printed yet (`not_printed=true`); `limit`
 * takes the first of them (a PDF holds at most MAX_BADGES_PER_PDF).
 */
export const BadgesSelection = z
  .object({
    guest_ids: guestIds.optional(),
    registration_type: integer().optional(),
    not_printed: boolean().optional(),
    limit: integer()
      .refine((n) => n >= 1 && n <= MAX_BADGES_PER_PDF, { error: BADGE_MSG.invalidLimit })
      .optional()
      .openapi({ description: `At most this many of the selection (by id; 1 to ${MAX_BADGES_PER_PDF}): a larger selection is printed a part at a time.` }),
    station,
  })
  .superRefine((q, ctx) => {
    const byFilter = q.registration_type !== undefined || q.not_printed === true;
    if ((q.guest_ids !== undefined) === byFilter) ctx.addIssue({ code: 'custom', path: [], message: BADGE_MSG.oneSelection });
  })
  .openapi('BadgesSelection');

export type BadgesSelectionInput = z.output<typeof BadgesSelection>;

export const BadgePrintListQuery = ListQuery.extend({ guest_id: integer().optional() });

export const BadgePrint = z
  .object({
    id: z.number().int(),
    uid: z.string(),
    guest_id: z.number().int(),
    station: z.string().nullable(),
    printed_by: z.string().nullable().openapi({ description: '`user:<id>` or `key:<id>` of this Doorlist; null for a print recorded on another.' }),
    printed_by_name: z.string().nullable().openapi({ description: 'The username or API key name that printed it.' }),
    printed_at: z.string(),
    created: z.string(),
    modified: z.string(),
  })
  .openapi('BadgePrint');
