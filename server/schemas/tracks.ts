import { z } from './zod';
import { datetime, pathId, requiredText, spanInOrder } from './fields';
import { EventParams } from './events';

export const TrackCreate = z
  .object({
    name: requiredText(255),
    starts: datetime(),
    ends: datetime(),
  })
  .superRefine(spanInOrder('track'))
  .openapi('TrackCreate');

/** Every field optional; the date order is checked against the stored values by the handler. */
export const TrackUpdate = z
  .object({
    name: requiredText(255).optional(),
    starts: datetime().optional(),
    ends: datetime().optional(),
  })
  .openapi('TrackUpdate');

// A track id that is no id at all answers "Track not found." like any unknown one.
export const TrackParams = EventParams.extend({ track_id: pathId.catch(0).openapi({ type: 'integer', minimum: 1, maximum: 2147483647 }) });

export const Track = z
  .object({
    id: z.number().int(),
    name: z.string(),
    event_id: z.number().int(),
    starts: z.string(),
    ends: z.string(),
    created: z.string(),
    modified: z.string(),
  })
  .openapi('Track');

export type TrackCreateInput = z.output<typeof TrackCreate>;
export type TrackUpdateInput = z.output<typeof TrackUpdate>;
