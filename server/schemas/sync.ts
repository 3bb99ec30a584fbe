import { z } from './zod';
import { integer, requiredText } from './fields';
import { ListQuery, timestampParam } from '../http/pagination';
import { MSG } from '../../core/messages';
import { parseFingerprint } from '../../core/fingerprint';
import { FINDINGS_KEPT } from '../../core/sync-limits';
import { VenueMember } from './venue';

const upstreamUrl = requiredText(2048)
  .refine((value) => /^https?:\/\/[^/\s]+/i.test(value) && URL.canParse(value), { error: MSG.syncUrlScheme })
  .openapi({ description: "The upstream's API base, e.g. https://192.168.1.20:8788/api/v1" });

const upstreamKey = requiredText(255).openapi({ description: 'An API key of the upstream; kept on this laptop only, never answered back' });

/** Kept as 64 lowercase hex digits; empty or null: none given. */
const fingerprint = z
  .string({ error: MSG.syncFingerprintFormat })
  .max(200, { error: MSG.syncFingerprintFormat })
  .nullable()
  .optional()
  .transform((value, ctx) => {
    if (value == null || value.trim() === '') return undefined;
    const hex = parseFingerprint(value);
    if (hex === null) {
      ctx.addIssue({ code: 'custom', message: MSG.syncFingerprintFormat });
      return z.NEVER;
    }
    return hex;
  })
  .openapi({
    type: 'string',
    description:
      "SHA-256 fingerprint of the upstream's certificate or of its authority, as its screen shows it (64 hex digits; colons, spaces and case ignored). Needed when this laptop's system does not trust the certificate (another laptop on the LAN).",
  });

export const SyncCreate = z
  .object({
    url: upstreamUrl,
    key: upstreamKey,
    event_id: integer().openapi({ description: "The upstream's event id (as the preview lists them)" }),
    group_id: integer().optional().openapi({ description: "Group the event joins here when new (as for event-file import); the file's own group when omitted" }),
    fingerprint,
  })
  .openapi('SyncCreate');
export type SyncCreate = z.infer<typeof SyncCreate>;

export const SyncPreviewRequest = z.object({ url: upstreamUrl, key: upstreamKey, fingerprint }).openapi('SyncPreviewRequest');
export type SyncPreviewRequest = z.infer<typeof SyncPreviewRequest>;

const UpstreamEvent = z.object({ id: z.number().int(), name: z.string().max(1000), starts: z.string().max(64), ends: z.string().max(64), timezone: z.string().max(64) });

export const SyncPreview = z
  .object({
    fingerprint: z.string().nullable().openapi({ description: "The fingerprint (AA:BB:...) the upstream's certificate chain showed: its authority's when it presents one; null over plain HTTP" }),
    events: z.array(UpstreamEvent).openapi({ description: 'The events the key sees upstream (at most 1,000)' }),
  })
  .openapi('SyncPreview');

/** What an upstream answers for its events list: read for the preview, bounded. */
export const UpstreamEventList = z.object({ results: z.array(UpstreamEvent).max(1000) });

/** Text of an upstream's answer, cut to what is kept of it. */
const cut = (max: number) => z.string().transform((value) => value.slice(0, max));

/**
 * What an upstream answers a push with: only its findings are used, and they are kept here, so
 * each is cut to its column and the lists to what is kept (the body itself is bounded in bytes).
 */
export const UpstreamPushAnswer = z.object({
  conflicts: z
    .array(z.object({ table: cut(64), uid: cut(64), kind: cut(32), value: cut(255).optional(), resolution: cut(255) }))
    .transform((list) => list.slice(0, FINDINGS_KEPT)),
  double_admissions: z
    .array(z.object({ guest_uid: cut(64), checkins: z.array(z.object({ uid: cut(64), station: cut(128).nullable(), scanned_at: cut(32) })) }))
    .transform((list) => list.slice(0, FINDINGS_KEPT)),
});

export const SyncCreated = z.object({ event_id: z.number().int(), sync_id: z.number().int() }).openapi('SyncCreated');

const SyncCheckin = z.object({ uid: z.string(), station: z.string().nullable(), scanned_at: z.string() });

export const SyncDoubleAdmission = z
  .object({
    guest_id: z.number().int().nullable(),
    guest_uid: z.string(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    checkins: z.array(SyncCheckin),
    found_at: z.string(),
  })
  .openapi('SyncDoubleAdmission');

export const SyncConflict = z
  .object({ table: z.string(), uid: z.string(), kind: z.string(), value: z.string().nullable(), resolution: z.string(), found_at: z.string() })
  .openapi('SyncConflict');

export const SyncStatus = z
  .object({
    sync_id: z.number().int(),
    url: z.string(),
    event_id: z.number().int(),
    remote_event_id: z.number().int(),
    state: z.enum(['ok', 'offline', 'error']),
    error: z.string().nullable(),
    fingerprint: z.string().nullable().openapi({ description: "The fingerprint (AA:BB:...) pinned for the upstream's certificate; null: the system's trust" }),
    last_pull_at: z.string().nullable(),
    last_push_at: z.string().nullable(),
    pending: z.number().int().openapi({ description: 'Local changes not yet confirmed by the upstream' }),
    double_admissions_count: z.number().int().openapi({ description: 'Guests admitted at two doors apart, all of them (GET /events/{event_id}/sync/double_admissions pages them)' }),
    conflicts_count: z.number().int().openapi({ description: 'Changes a merge could not apply as is, all of them (GET /events/{event_id}/sync/conflicts pages them)' }),
    double_admissions: z.array(SyncDoubleAdmission).openapi({ description: 'The latest 5 double admissions, newest first' }),
    conflicts: z.array(SyncConflict).openapi({ description: 'The latest 5 conflicts, newest first' }),
    epoch: z.number().int().openapi({ description: 'The venue epoch this laptop knows: 1 for a first follow, one more at each takeover' }),
    venue: z.array(VenueMember).openapi({ description: 'The laptops of the venue this laptop knows (its upstream included), as its upstream answered them' }),
    venue_note: z.string().nullable().openapi({ description: 'What the console shows about the venue (e.g. a takeover lost to another laptop); null for nothing' }),
  })
  .openapi('SyncStatus');

/** A page of a sync's double admissions or conflicts. */
export const SyncFindingsQuery = ListQuery.pick({ page: true, page_size: true });

export const SyncChangesQuery = z.object({
  since: timestampParam.optional().openapi({ description: 'Upstream cursor of the last merged pull; the whole event without it' }),
});
