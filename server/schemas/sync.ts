import { z } from './zod';
import { integer, requiredText } from './fields';
import { timestampParam } from '../http/pagination';
import { MSG } from '../../core/messages';

export const SyncCreate = z
  .object({
    url: requiredText(2048)
      .refine((value) => /^https?:\/\/[^/\s]+/i.test(value) && URL.canParse(value), { error: MSG.syncUrlScheme })
      .openapi({ description: "The upstream's API base, e.g. https://central.example:8788/api/v1" }),
    key: requiredText(255).openapi({ description: 'An API key of the upstream; kept on this laptop only, never answered back' }),
    event_id: integer().openapi({ description: "The upstream's event id" }),
    group_id: integer().optional().openapi({ description: "Group the event joins here when new (as for event-file import); the caller's own group when omitted" }),
  })
  .openapi('SyncCreate');
export type SyncCreate = z.infer<typeof SyncCreate>;

export const SyncCreated = z.object({ event_id: z.number().int(), sync_id: z.number().int() }).openapi('SyncCreated');

const SyncCheckin = z.object({ uid: z.string(), station: z.string().nullable(), scanned_at: z.string() });

export const SyncStatus = z
  .object({
    sync_id: z.number().int(),
    url: z.string(),
    event_id: z.number().int(),
    remote_event_id: z.number().int(),
    state: z.enum(['ok', 'offline', 'error']),
    error: z.string().nullable(),
    last_pull_at: z.string().nullable(),
    last_push_at: z.string().nullable(),
    pending: z.number().int().openapi({ description: 'Local changes not yet confirmed by the upstream' }),
    double_admissions: z.array(
      z.object({
        guest_id: z.number().int().nullable(),
        guest_uid: z.string(),
        first_name: z.string().nullable(),
        last_name: z.string().nullable(),
        checkins: z.array(SyncCheckin),
        found_at: z.string(),
      }),
    ),
    conflicts: z.array(
      z.object({ table: z.string(), uid: z.string(), kind: z.string(), value: z.string().nullable(), resolution: z.string(), found_at: z.string() }),
    ),
  })
  .openapi('SyncStatus');

export const SyncChangesQuery = z.object({
  since: timestampParam.optional().openapi({ description: 'Upstream cursor of the last merged pull; the whole event without it' }),
});
