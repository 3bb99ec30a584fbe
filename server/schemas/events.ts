import { z } from './zod';
import { choice, datetime, integer, pathId, requiredText, spanInOrder } from './fields';
import { MSG, TIMEZONES } from '../../core/messages';
import { ListQuery } from '../http/pagination';

const timezone = choice(TIMEZONES, MSG.invalidTimezone);

export const EventCreate = z
  .object({
    name: requiredText(255),
    starts: datetime(),
    ends: datetime(),
    timezone,
    group_id: integer(),
  })
  .superRefine(spanInOrder('event'))
  .openapi('EventCreate');

export const EventUpdate = z
  .object({
    name: requiredText(255).optional(),
    starts: datetime().optional(),
    ends: datetime().optional(),
    timezone: timezone.optional(),
    group_id: integer().optional(),
  })
  .openapi('EventUpdate');

export const EventParams = z.object({ event_id: pathId });

export const EventListQuery = ListQuery.extend({ group_id: integer().optional() });

// A sane bound: each copy is a full configuration, written in one transaction.
export const MAX_DUPLICATES = 50;

export const DuplicateEventBody = z
  .object({
    quantity: integer()
      .pipe(z.number().min(1, { error: 'Ensure this value is greater than or equal to 1.' }).max(MAX_DUPLICATES, { error: `Ensure this value is less than or equal to ${MAX_DUPLICATES}.` }))
      .openapi({ minimum: 1, maximum: MAX_DUPLICATES, description: 'How many copies (1 to 50).' })
      .default(1),
    name: requiredText(255).optional(),
  })
  .openapi('DuplicateEvent');

export const DuplicateEventResult = z.object({ new_event_ids: z.array(z.number().int()) }).openapi('DuplicateEventResult');

export const Event = z
  .object({
    id: z.number().int(),
    name: z.string(),
    group_id: z.number().int(),
    timezone,
    starts: z.string(),
    ends: z.string(),
    created: z.string(),
    modified: z.string(),
  })
  .openapi('Event');

export type EventCreateInput = z.output<typeof EventCreate>;
