import { z } from './zod';
import { boolean, datetime, integer, nonNegativeInteger, pathId, requiredText, spanInOrder } from './fields';
import { MSG } from '../../core/messages';
import { EventParams } from './events';
import { ListQuery } from '../http/pagination';

export const DEFAULT_SESSION_CAPACITY = 10000;
export const MAX_SESSION_TAGS = 50;

/** Tags as a list of non-blank strings; null means none; repeats collapse (a tag is a set member). */
const tagList = z
  .array(requiredText(255), { error: (issue) => (issue.input === null ? MSG.notNull : MSG.invalidList) })
  .max(MAX_SESSION_TAGS, { error: MSG.tooManyTags(MAX_SESSION_TAGS) })
  .nullable()
  .transform((tags) => [...new Set(tags ?? [])]);

/** A track of the same event, or null for none (checked against the event by the handler). */
const trackId = integer().nullable();

export const SessionCreate = z
  .object({
    name: requiredText(255),
    starts: datetime(),
    ends: datetime(),
    tags: tagList.default([]),
    access_control: boolean().default(false),
    capacity: nonNegativeInteger().default(DEFAULT_SESSION_CAPACITY),
    auto_registration: boolean().default(false),
    overbook_capacity: nonNegativeInteger().default(0),
    track_id: trackId.default(null),
    hidden_session: boolean().default(false),
  })
  .superRefine(spanInOrder('session'))
  .openapi('SessionCreate');

/**
 * Every field optional: an omitted field keeps its stored value. `capacity` is set on create
 * only; it is accepted here when unchanged (so a fetched record can be sent back) and refused otherwise.
 */
export const SessionUpdate = z
  .object({
    name: requiredText(255).optional(),
    starts: datetime().optional(),
    ends: datetime().optional(),
    tags: tagList.optional(),
    access_control: boolean().optional(),
    capacity: nonNegativeInteger().optional(),
    auto_registration: boolean().optional(),
    overbook_capacity: nonNegativeInteger().optional(),
    track_id: trackId.optional(),
    hidden_session: boolean().optional(),
  })
  .openapi('SessionUpdateInput');

/** SessionUpdate as the document shows it: without `capacity`, which the spec makes create-only. */
export const SessionUpdateDocumented = SessionUpdate.omit({ capacity: true }).openapi('SessionUpdate', {
  description: `Every field optional: an omitted field keeps its stored value. \`capacity\` is set on create only: sent here it is refused with 400 {"capacity": ["..."]} unless it equals the stored one.`,
});

/** A session id that is no id at all answers "Session not found." like any unknown one. */
const sessionId = pathId.catch(0).openapi({ type: 'integer', minimum: 1, maximum: 2147483647 });

export const SessionParams = EventParams.extend({ session_id: sessionId });

export const SessionListQuery = ListQuery.extend({ track_id: integer().optional() });

export const Session = z
  .object({
    id: z.number().int(),
    event_id: z.number().int(),
    name: z.string(),
    starts: z.string(),
    ends: z.string(),
    tags: z.array(z.string()),
    access_control: z.boolean(),
    capacity: z.number().int(),
    auto_registration: z.boolean(),
    overbook_capacity: z.number().int(),
    track_id: z.number().int().nullable(),
    hidden_session: z.boolean(),
    overlap_enabled: z.boolean(),
    registered: z.number().int().openapi({ description: 'Guests registered for the session' }),
    created: z.string(),
    modified: z.string(),
  })
  .openapi('Session');

export const SessionRegistrationParams = EventParams.extend({ guest_id: pathId.catch(0).openapi({ type: 'integer', minimum: 1, maximum: 2147483647 }), session_id: sessionId });

export const SessionRegistrationBody = z.object({ attend: boolean().default(true) }).openapi('SessionRegistrationBody');

export const SESSION_REGISTRATION_STATUS = { registered: 'registered', unregistered: 'unregistered' } as const;

/** The spec types both ids as String in this answer. */
export const SessionRegistrationResult = z
  .object({
    guest_id: z.string(),
    status: z.enum([SESSION_REGISTRATION_STATUS.registered, SESSION_REGISTRATION_STATUS.unregistered]),
    session_id: z.string(),
  })
  .openapi('SessionRegistration');

export const SessionRegistrationListQuery = ListQuery;

export const SessionRegistration = z
  .object({
    id: z.number().int(),
    guest_id: z.number().int(),
    session_id: z.number().int(),
    status: z.literal(SESSION_REGISTRATION_STATUS.registered),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    created: z.string(),
    modified: z.string(),
  })
  .openapi('SessionRegistrationRecord');

export type SessionCreateInput = z.output<typeof SessionCreate>;
export type SessionUpdateInput = z.output<typeof SessionUpdate>;
