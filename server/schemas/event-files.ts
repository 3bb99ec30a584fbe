import { z } from './zod';
import { integer } from './fields';
import { timestampParam } from '../http/pagination';

export const EventFileImportQuery = z.object({
  group_id: integer()
    .optional()
    .openapi({
      description:
        "Group of a new event. Omitted: an API key's or a user's own group; for an administrator the file's own group (by uid), made here if missing. An existing event keeps its group.",
    }),
});

export const EventFileExportQuery = z.object({
  since: timestampParam.optional().openapi({ description: 'A delta: only the records (and check-ins, undos included) modified at or after it, in the same format.' }),
});

const Counts = z.record(z.string(), z.number().int());

const Conflict = z
  .object({
    table: z.string(),
    uid: z.string(),
    kind: z.enum(['barcode', 'nfc_tag', 'code', 'other_event', 'setup_change']),
    value: z.string().optional(),
    existing_id: z.number().int().optional(),
    existing_uid: z.string().optional(),
    resolution: z.string(),
    guest: z
      .object({ uid: z.string(), first_name: z.string(), last_name: z.string() })
      .optional()
      .openapi({ description: "A code clash: the file's guest whose barcode or NFC tag another guest here holds." }),
    existing_guest: z
      .object({ id: z.number().int(), uid: z.string(), first_name: z.string(), last_name: z.string() })
      .optional()
      .openapi({ description: 'A code clash: the guest here who holds the code.' }),
  })
  .openapi('EventFileConflict');

const DoubleAdmission = z
  .object({
    guest_id: z.number().int(),
    guest_uid: z.string(),
    name: z.string(),
    checkins: z.array(z.object({ uid: z.string(), station: z.string().nullable(), scanned_at: z.string() })),
  })
  .openapi('DoubleAdmission');

export const EventFileImportResult = z
  .object({
    event_id: z.number().int(),
    event_created: z.boolean(),
    group_id: z.number().int(),
    group_created: z.boolean(),
    created: Counts,
    updated: Counts,
    unchanged: Counts,
    skipped: Counts,
    deleted: Counts,
    checkins_added: z.number().int(),
    conflicts: z.array(Conflict),
    double_admissions: z.array(DoubleAdmission),
  })
  .openapi('EventFileImportResult');
