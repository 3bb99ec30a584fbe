import { z } from './zod';
import { boolean, choice, codeText, integer, nonNegativeInteger, numberAsDigits, optionalText, pathId, scanTime, scanUid, stationName } from './fields';
import { MSG } from '../../core/messages';
import { ListQuery } from '../http/pagination';
import { CHECKIN_DIRECTIONS, SCAN_STATUS } from '../../core/scan';

export { CHECKIN_DIRECTIONS, SCAN_STATUS, type CheckinDirection } from '../../core/scan';

/**
 * A scanned code: trimmed, not blank; at most the stored column width. A number is taken as
 * its digits, as guest create takes it, so a guest made with a numeric barcode scans with it.
 */
function scannedCode() {
  return z
    .preprocess(
      numberAsDigits,
      codeText({ empty: MSG.blank }),
    )
    .optional();
}

export const CheckinCreate = z
  .object({
    barcode: scannedCode(),
    nfc_tag: scannedCode(),
    guest_id: integer().optional(),
    session_id: integer().nullish(),
    direction: choice(CHECKIN_DIRECTIONS, MSG.invalidDirection).default('in'),
    // The client's scan id: a replay of the same uid gets the first answer again.
    uid: scanUid().optional(),
    // When the scan happened (UTC), kept as sent so an offline station's queue keeps its times.
    scanned_at: scanTime().optional(),
    station: optionalText(128),
  })
  .superRefine((scan, ctx) => {
    const targets = [scan.barcode, scan.nfc_tag, scan.guest_id].filter((v) => v !== undefined).length;
    if (targets !== 1) ctx.addIssue({ code: 'custom', path: [], message: MSG.oneScanTarget });
  })
  .openapi('CheckinCreate', {
    description: 'Exactly one of `barcode`, `nfc_tag` or `guest_id` names the guest (else 400 `non_field_errors`). A repeated `uid` is answered as it was the first time and records nothing.',
  });

export type CheckinCreateInput = z.output<typeof CheckinCreate>;

export const CheckinEventParams = z.object({ event_id: pathId });
export const CheckinParams = z.object({ event_id: pathId, checkin_id: pathId });

export const CheckinListQuery = ListQuery.extend({
  guest_id: integer().optional(),
  session_id: integer().optional(),
  // Undone scans are listed only when asked for (or in a timestamp delta).
  include_undone: boolean().optional().openapi({ description: 'true: undone scans too (a timestamp delta always has them).' }),
});

/** Who is standing at the door: enough for the screen to greet or refuse them. */
export const ScanGuest = z
  .object({
    id: z.number().int(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    company: z.string().nullable(),
    registration_type: z.number().int(),
    registration_type_name: z.string(),
    barcode: z.string(),
    attention: z.boolean().openapi({ description: 'The door must stop for this guest (VIP, age check, access needs)' }),
    notes: z.string().nullable().openapi({ description: 'Why, or what to do: for the door staff' }),
    registration_type_attention: z.boolean().openapi({ description: "The guest's registration type asks the door to stop for all its guests" }),
    door_answers: z
      .array(z.object({ question_id: z.number().int(), question: z.string(), answer: z.string().openapi({ description: 'A choice by its text; several joined by "; "' }) }))
      .openapi({ description: 'The guest\'s answers to the questions marked show_at_door' }),
  })
  .openapi('ScanGuest');

export const ScanAccepted = z
  .object({
    id: z.number().int(),
    uid: z.string(),
    guest_id: z.number().int(),
    session_id: z.number().int().nullable(),
    direction: z.enum(CHECKIN_DIRECTIONS),
    status: z.enum([SCAN_STATUS.checkedIn, SCAN_STATUS.checkedOut]),
    scanned_at: z.string(),
    station: z.string().nullable(),
    guest: ScanGuest,
  })
  .openapi('ScanAccepted');

// The scan's refusals, one schema per HTTP status (`details` is the spec's wording of `status`).
export const ScanRefused = z
  .object({
    details: z.string(),
    status: z.enum([SCAN_STATUS.inactive, SCAN_STATUS.sessionFull, SCAN_STATUS.notRegistered]),
    guest: ScanGuest,
  })
  .openapi('ScanRefused', { description: 'A 400 refusal: the guest is inactive, the session full, or the guest not registered for it.' });

export const ScanNotFound = z
  .object({ details: z.string(), status: z.literal(SCAN_STATUS.notFound) })
  .openapi('ScanNotFound', { description: 'A 404 refusal: no guest of the event has this barcode, NFC tag or id.' });

export const ScanConflict = z
  .discriminatedUnion('status', [
    z.object({
      details: z.string(),
      status: z.literal(SCAN_STATUS.alreadyCheckedIn),
      checked_in_at: z.string().nullable(),
      checked_in_station: z.string().nullable(),
      guest: ScanGuest,
    }),
    z.object({ details: z.string(), status: z.literal(SCAN_STATUS.notCheckedIn), guest: ScanGuest }),
  ])
  .openapi('ScanConflict', { description: 'A 409 refusal: already in (when and where), or scanned out while not in.' });

export const Checkin = z
  .object({
    id: z.number().int(),
    uid: z.string(),
    guest_id: z.number().int(),
    session_id: z.number().int().nullable(),
    direction: z.enum(CHECKIN_DIRECTIONS),
    scanned_at: z.string(),
    station: z.string().nullable(),
    undone_at: z.string().nullable(),
    created: z.string(),
    modified: z.string(),
  })
  .openapi('Checkin');

export const SupervisorStats = z
  .object({
    now: z.string().openapi({ description: "The server's time of these figures (UTC): what `last_seen_at` and the pace are measured from" }),
    remaining: z.number().int().openapi({ description: 'Active guests not checked in (inactive guests are not expected)' }),
    registration_types: z
      .array(z.object({ id: z.number().int(), remaining: z.number().int() }))
      .openapi({ description: 'Active guests of each type not checked in, in the order of the top-level registration_types' }),
    recent_minutes: z.number().int().openapi({ description: 'The window of `scans_recent`, in minutes (5)' }),
    scans_recent: z.number().int().openapi({ description: 'Standing scans (in and out, all doors) made in the last recent_minutes: the pace is this over recent_minutes' }),
    stations: z
      .array(
        z.object({
          station: z.string().nullable(),
          health: z.enum(['online', 'offline', 'queued', 'left']).openapi({
            description:
              'online: heard (heartbeat or scan) within 15 s; queued: heard within 15 s and reporting scans it has not handed over; offline: neither, its heartbeats stopped less than 10 minutes ago; left: its heartbeats stopped longer ago, or it was never heard by heartbeat (known from its scans only): not a door that is open',
          }),
          last_scan_at: z.string().nullable().openapi({ description: 'When its latest scan happened (UTC; undone scans too)' }),
          last_seen_at: z.string().nullable().openapi({ description: 'Its latest heartbeat or scan, whichever is later (UTC)' }),
          queued: z.number().int().openapi({ description: 'Scans unsent, as its latest heartbeat within 15 s said; 0 otherwise' }),
          scans_recent: z.number().int().openapi({ description: 'Its standing scans of the last recent_minutes' }),
        }),
      )
      .openapi({ description: "Every station that scanned or sent a heartbeat (a renamed one's scans under its new name), offline ones first, those that left last, then by name" }),
    latest: z
      .array(
        z.object({
          id: z.number().int(),
          guest_id: z.number().int(),
          first_name: z.string(),
          last_name: z.string(),
          registration_type: z.number().int(),
          direction: z.enum(CHECKIN_DIRECTIONS),
          session_id: z.number().int().nullable(),
          station: z.string().nullable().openapi({ description: 'The name its station goes by now (renamed since: its new name)' }),
          scanned_at: z.string(),
        }),
      )
      .openapi({ description: 'The 15 latest standing scans across all stations, by when they happened (scanned_at), newest first' }),
  })
  .openapi('SupervisorStats');

export const EventStats = z
  .object({
    total: z.number().int(),
    checked_in: z.number().int(),
    inactive: z.number().int(),
    registration_types: z.array(z.object({ id: z.number().int(), name: z.string(), total: z.number().int(), checked_in: z.number().int() })),
    sessions: z.array(
      z.object({
        id: z.number().int(),
        name: z.string(),
        registered: z.number().int(),
        checked_in: z.number().int(),
        capacity: z.number().int(),
        overbook_capacity: z.number().int(),
      }),
    ),
    stations: z.array(
      z.object({
        station: z.string().nullable(),
        checked_in: z.number().int(),
        checked_out: z.number().int(),
        undone: z.number().int().openapi({ description: "The station's scans taken back since" }),
      }),
    ),
    arrivals: z.array(z.object({ starts: z.string(), checked_in: z.number().int() })),
    supervisor: SupervisorStats.optional().openapi({ description: 'Only with supervisor=true' }),
  })
  .openapi('EventStats');

/**
 * `station` and `queued` are a door station's heartbeat, sent with its poll; `supervisor=true`
 * asks for the supervisor view's figures (issue 38), which the doors' polls do not pay for.
 */
export const StatsQuery = z.object({
  station: stationName()
    .openapi({ description: "The polling door station's name: its heartbeat (the supervisor view shows it online)" }),
  queued: nonNegativeInteger().optional().openapi({ description: 'Scans the polling station holds that the server has not answered yet' }),
  previous_station: stationName().openapi({
    description: "The polling station's name until now (renamed in its settings): the old name's history shows under the new one in the supervisor view from then on, kept across restarts (scans keep the name they were made under). Taken only from the caller the old name is theirs: who beat under it, or, when this server has not heard it since it started, who made its scans",
  }),
  supervisor: boolean().default(false).openapi({ description: 'Add the supervisor view\'s figures (`supervisor`)' }),
});
