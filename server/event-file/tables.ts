import { z } from '../schemas/zod';
import { storedInstant } from '../../core/time';
import type { TableLayout } from '../../db/repositories/event-file-export';

/**
 * What an event file holds: every table under an event, parents before children, each
 * record's columns and how they are checked. Records name their parents by uid (never by
 * id), so ids can be remapped on the importing side.
 */

const text = (max: number) => z.string().max(max);
const ntext = (max: number) => z.string().max(max).nullable();
const int = z.number().int().min(-2147483648).max(2147483647);
const nint = int.nullable();
// Decimals may be stored as numeric text by some writers.
const num = z.union([z.number().finite(), z.string().regex(/^-?\d+(\.\d+)?$/).transform(Number)]);
const nnum = num.nullable();
const bool = z.union([z.boolean(), z.literal(0), z.literal(1)]).transform((v) => (v ? 1 : 0));
// Stored datetimes: server instants (`...sss Z`) and wall-clock times (`YYYY-MM-DDThh:mm:ss`).
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/;
const time = z.string().regex(DATETIME);
const ntime = time.nullable();
// What a scan records is an instant, kept in one stored form whichever database wrote the file.
const instant = time.transform((v, ctx) => {
  const stored = storedInstant(v);
  if (stored === null) ctx.addIssue({ code: 'custom', message: 'Not a real time.' });
  return stored ?? z.NEVER;
});
const ninstant = instant.nullable();

export interface TableDef extends Omit<TableLayout, 'columns'> {
  /** Data columns copied as they are (no ids, no uid/created/modified), with their checks. */
  columns: Record<string, z.ZodType>;
  /** Columns kept out of the "did it change" comparison: derived state. */
  derived?: string[];
  uidMax?: number;
  /**
   * Changes a door role may bring (DESIGN "Identity"): check-ins and undos (with the session
   * registrations a scan makes), and new guests (with their answers). Everything else is set-up.
   */
  door?: { create: boolean; update: boolean };
}

export const EVENT_TABLES: TableDef[] = [
  {
    name: 'registration_types',
    onEvent: true,
    refs: [],
    columns: {
      type: text(16), name: text(255), description: z.string(), starts: ntime, ends: ntime, minorder: nint, maxorder: nint,
      price: nnum, quantity: nint, door: bool, online: bool, source: text(32), objstatus: int,
    },
  },
  { name: 'custom_questions', onEvent: true, refs: [], columns: { question: z.string(), type: text(16), objstatus: int } },
  {
    name: 'question_choices',
    onEvent: false,
    refs: [{ column: 'question_id', table: 'custom_questions', key: 'question_uid' }],
    columns: { answer: z.string(), position: int },
  },
  { name: 'tracks', onEvent: true, refs: [], columns: { name: text(255), starts: time, ends: time } },
  {
    name: 'sessions',
    onEvent: true,
    refs: [{ column: 'track_id', table: 'tracks', key: 'track_uid', nullable: true }],
    columns: {
      name: text(255), starts: time, ends: time, access_control: bool, capacity: int, auto_registration: bool,
      overbook_capacity: int, hidden_session: bool, overlap_enabled: bool,
    },
  },
  {
    name: 'session_tags',
    onEvent: false,
    owned: true,
    refs: [{ column: 'session_id', table: 'sessions', key: 'session_uid' }],
    columns: { tag: text(255), position: int },
    natural: ['session_id', 'tag'],
  },
  {
    name: 'guests',
    onEvent: true,
    door: { create: true, update: false },
    refs: [{ column: 'registration_type_id', table: 'registration_types', key: 'registration_type_uid' }],
    columns: {
      first_name: text(255), last_name: text(255), email: text(254), prefix: ntext(64), suffix: ntext(64), phone: ntext(64),
      cell_phone: ntext(64), company: ntext(255), job_title: ntext(255), work_phone: ntext(64), blog: ntext(255), website: ntext(255),
      barcode: text(128).min(1), nfc_tag: ntext(128), objstatus: int, selfie: text(512), source: text(32), checked_in_at: ninstant,
    },
    derived: ['checked_in_at'],
  },
  {
    name: 'guest_answers',
    onEvent: false,
    owned: true,
    door: { create: true, update: false },
    refs: [
      { column: 'guest_id', table: 'guests', key: 'guest_uid' },
      { column: 'question_id', table: 'custom_questions', key: 'question_uid' },
      { column: 'choice_id', table: 'question_choices', key: 'choice_uid', nullable: true },
    ],
    columns: { text_answer: z.string().nullable() },
  },
  {
    name: 'session_registrations',
    onEvent: false,
    // A door's session scan registers the guest where the session allows auto-registration.
    door: { create: true, update: false },
    refs: [
      { column: 'guest_id', table: 'guests', key: 'guest_uid' },
      { column: 'session_id', table: 'sessions', key: 'session_uid' },
    ],
    columns: {},
    natural: ['session_id', 'guest_id'],
  },
  {
    name: 'checkins',
    onEvent: true,
    uidPerEvent: true,
    uidMax: 64,
    door: { create: true, update: true },
    refs: [
      { column: 'guest_id', table: 'guests', key: 'guest_uid' },
      { column: 'session_id', table: 'sessions', key: 'session_uid', nullable: true },
    ],
    columns: { direction: z.enum(['in', 'out']), scanned_at: instant, station: ntext(128), undone_at: ninstant },
  },
  {
    // The badge print log (issue 39): records are never changed, only added, like scans. Who
    // printed travels by name; the local user or key id (`printed_by`) stays on its laptop.
    name: 'badge_prints',
    onEvent: true,
    door: { create: true, update: false },
    refs: [{ column: 'guest_id', table: 'guests', key: 'guest_uid' }],
    columns: { station: ntext(128), printed_by_name: ntext(255), printed_at: instant },
  },
  {
    name: 'promotion_codes',
    onEvent: true,
    refs: [],
    columns: {
      code: text(64), discount_type: text(16), discount_amount: num, quantity: int, used: int, starts: ntime, ends: ntime,
      available_only: bool,
    },
    natural: ['event_id', 'code'],
  },
  {
    name: 'promotion_code_registration_types',
    onEvent: false,
    owned: true,
    refs: [
      { column: 'promotion_code_id', table: 'promotion_codes', key: 'promotion_code_uid' },
      { column: 'registration_type_id', table: 'registration_types', key: 'registration_type_uid' },
    ],
    columns: {},
    natural: ['promotion_code_id', 'registration_type_id'],
  },
];

/** Every table an event file may hold, in file order. */
export const EVENT_FILE_TABLES = ['events', ...EVENT_TABLES.map((t) => t.name)];

/** What the database side needs to know of each table: its name, columns and parents. */
export const EVENT_TABLE_LAYOUTS: TableLayout[] = EVENT_TABLES.map((def) => ({ ...def, columns: Object.keys(def.columns) }));

export const EventRecord = z.object({
  uid: text(36).min(1),
  created: time,
  modified: time,
  name: text(255),
  starts: time,
  ends: time,
  timezone: text(64),
});

/** The event's group as the file carries it, so a laptop without it can create it. */
export const GroupRecord = z.object({
  uid: text(36).min(1),
  name: text(255).min(1),
  type: text(32),
  email: ntext(254),
  phone: ntext(64),
  website: ntext(255),
});
export type GroupRecord = z.infer<typeof GroupRecord>;

export function recordSchema(def: TableDef) {
  const refs = Object.fromEntries(def.refs.map((r) => [r.key, r.nullable ? z.string().max(64).nullable() : z.string().min(1).max(64)]));
  return z.object({ uid: z.string().min(1).max(def.uidMax ?? 36), created: time, modified: time, ...def.columns, ...refs });
}
