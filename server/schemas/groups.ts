import { z } from './zod';
import { choice, integer, optionalEmail, optionalText, pathId, requiredText } from './fields';
import { GROUP_TYPES, MSG } from '../../core/messages';
import { ListQuery } from '../http/pagination';

const parentId = z
  .preprocess(
    (v) => (typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v === '' ? null : v),
    z.number({ error: MSG.invalidParentId }).int({ error: MSG.invalidParentId }).positive({ error: MSG.invalidParentId }),
  )
  .nullish();

const groupType = choice(GROUP_TYPES, MSG.invalidGroupType);

export const GroupCreate = z
  .object({
    name: requiredText(255),
    email: optionalEmail(),
    phone: optionalText(64),
    website: optionalText(255),
    type: groupType.default('Event Planner'),
    parent_id: parentId,
  })
  .openapi('GroupCreate');

export const GroupUpdate = z
  .object({
    name: requiredText(255).optional(),
    email: optionalEmail(),
    phone: optionalText(64),
    website: optionalText(255),
    type: groupType.optional(),
    parent_id: parentId,
  })
  .openapi('GroupUpdate');

export const GroupParams = z.object({ group_id: pathId });

export const GroupListQuery = ListQuery.extend({ parent_id: integer().optional() });

export const Group = z
  .object({
    id: z.number().int(),
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    website: z.string().nullable(),
    type: groupType,
    parent_id: z.number().int().nullable(),
    created: z.string(),
    modified: z.string(),
  })
  .openapi('Group');

export type GroupCreateInput = z.output<typeof GroupCreate>;
export type GroupUpdateInput = z.output<typeof GroupUpdate>;
