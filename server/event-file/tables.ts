import { z } from '../schemas/zod';
import { boolean, codeText, isPlausibleScanTime, isRealDateAndTime, nonNegativeInteger, optionalText, requiredBlankableText, requiredText, spanInOrder, uuid } from '../schemas/fields';
import { EventCreate } from '../schemas/events';
import { GroupCreate } from '../schemas/groups';
import { RegistrationTypeCreate } from '../schemas/registration-types';
import { CustomQuestionCreate } from '../schemas/custom-questions';
import { TrackCreate } from '../schemas/tracks';
import { SessionCreate } from '../schemas/sessions';
import { GuestCreate, GuestUpdate, TEXT_ANSWER_MAX } from '../schemas/guests';
import { CheckinCreate } from '../schemas/checkins';
import { PromotionCodeCreate, promotionCodeRuleErrors, type PromotionCodeRules } from '../schemas/promotion-codes';
import { storedInstant } from '../../core/time';
import { MSG } from '../../core/messages';
import { spanErrors, type Span, type SpanKind } from '../../core/spans';
import type { TableLayout } from '../../db/repositories/event-file-export';

/**
 * What an event file holds: every table under an event, parents before children, each
 * record's columns and how they are checked. Records name their parents by uid (never by
 * id), so ids can be remapped on the importing side. Every field a client can set through the
 * API is checked by the API's own schema (server/schemas), so a file can store nothing the
 * API would refuse: a time zone off the list, NUL characters, a code in another form than
 * the one scans match, a status or an amount out of range.
 */

/** The API's schema of `key` in `object`, as a file carries it: present, optional and defaults aside. */
function apiField(object: z.ZodObject, key: string): z.ZodType {
  let field = object.shape[key] as z.ZodType;
  while (field instanceof z.ZodOptional || field instanceof z.ZodDefault) field = field.unwrap() as z.ZodType;
  return field;
}

// Booleans are stored as 0/1 whichever database wrote the file.
const bool = boolean().transform((v) => (v ? 1 : 0));
// Columns the server sets (never a client): plain text of the column's width, without NUL.
const serverText = (max: number) => requiredBlankableText(max);
const count = nonNegativeInteger();
// Flags files gained later (attention, show_at_door): a record of an older file reads as off.
const laterFlag = boolean().optional().transform((v) => (v ? 1 : 0));
// Stored datetimes: server instants (`...sss Z`) and wall-clock times (`YYYY-MM-DDThh:mm:ss`).
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/;
// A day that does not exist (30 February) is refused, as the API refuses it, never rolled over.
const time = z.string().regex(DATETIME).refine(isRealDateAndTime, { error: 'Not a real time.' });
// What a scan records is an instant, kept in one stored form whichever database wrote the file,
// and bounded as the API bounds a scan's time.
const instant = time
  .transform((v, ctx) => {
    const stored = storedInstant(v);
    if (stored === null) ctx.addIssue({ code: 'custom', message: 'Not a real time.' });
    return stored ?? z.NEVER;
  })
  .refine((v) => isPlausibleScanTime(v), { error: MSG.scanTimeOutOfRange });
const ninstant = instant.nullable();
// A wall-clock time as the API takes it (`YYYY-MM-DDThh:mm[:ss]`), stored with seconds.
const wallClock = apiField(EventCreate, 'starts');
const nwallClock = wallClock.nullable();

const GUEST_FIELDS = ['first_name', 'last_name', 'email', 'prefix', 'suffix', 'phone', 'cell_phone', 'company', 'job_title', 'work_phone', 'blog', 'website'];

/** The API's rule that a start comes no later than its end (core/spans.ts). */
const inOrder = (kind: SpanKind) => (r: Record<string, unknown>) => spanErrors(kind, r as Partial<Span>);

export interface TableDef extends Omit<TableLayout, 'columns'> {
  /** Data columns copied as they are (no ids, no uid/created/modified), with their checks. */
  columns: Record<string, z.ZodType>;
  /** Columns kept out of the "did it change" comparison: derived state. */
  derived?: string[];
  /** The uid's rule, when it is not a UUID (a scan's uid is the client's, as the API takes it). */
  uid?: z.ZodType;
  /**
   * Changes a door role may bring (DESIGN "Identity"): check-ins and undos (with the session
   * registrations a scan makes), and new guests (with their answers). Everything else is set-up.
   */
  door?: { create: boolean; update: boolean };
  /** Rules between a record's fields, as the API's (field errors, none when valid). */
  rules?: (record: Record<string, unknown>) => Record<string, string[]>;
}

export const EVENT_TABLES: TableDef[] = [
  {
    name: 'registration_types',
    onEvent: true,
    refs: [],
    columns: {
      type: apiField(RegistrationTypeCreate, 'type'), name: apiField(RegistrationTypeCreate, 'name'), description: apiField(RegistrationTypeCreate, 'description'),
      starts: nwallClock, ends: nwallClock, minorder: apiField(RegistrationTypeCreate, 'minorder').nullable(), maxorder: apiField(RegistrationTypeCreate, 'maxorder').nullable(),
      price: apiField(RegistrationTypeCreate, 'price').nullable(), quantity: apiField(RegistrationTypeCreate, 'quantity').nullable(), door: bool, online: bool,
      source: serverText(32), objstatus: z.literal(1), attention: laterFlag,
    },
  },
  {
    name: 'custom_questions',
    onEvent: true,
    refs: [],
    columns: { question: apiField(CustomQuestionCreate, 'question'), type: apiField(CustomQuestionCreate, 'type'), objstatus: apiField(CustomQuestionCreate, 'objstatus'), show_at_door: laterFlag },
  },
  {
    name: 'question_choices',
    onEvent: false,
    refs: [{ column: 'question_id', table: 'custom_questions', key: 'question_uid' }],
    columns: { answer: requiredText(1000), position: count },
  },
  { name: 'tracks', onEvent: true, refs: [], columns: { name: apiField(TrackCreate, 'name'), starts: wallClock, ends: wallClock }, rules: inOrder('track') },
  {
    name: 'sessions',
    onEvent: true,
    refs: [{ column: 'track_id', table: 'tracks', key: 'track_uid', nullable: true }],
    columns: {
      name: apiField(SessionCreate, 'name'), starts: wallClock, ends: wallClock, access_control: bool, capacity: apiField(SessionCreate, 'capacity'),
      auto_registration: bool, overbook_capacity: apiField(SessionCreate, 'overbook_capacity'), hidden_session: bool, overlap_enabled: bool,
    },
    rules: inOrder('session'),
  },
  {
    name: 'session_tags',
    onEvent: false,
    owned: true,
    refs: [{ column: 'session_id', table: 'sessions', key: 'session_uid' }],
    columns: { tag: requiredText(255), position: count },
    natural: ['session_id', 'tag'],
  },
  {
    name: 'guests',
    onEvent: true,
    door: { create: true, update: false },
    refs: [{ column: 'registration_type_id', table: 'registration_types', key: 'registration_type_uid' }],
    columns: {
      ...Object.fromEntries(GUEST_FIELDS.map((f) => [f, apiField(GuestCreate, f)])),
      barcode: codeText({ empty: MSG.barcodeEmpty }),
      nfc_tag: codeText({ empty: MSG.nfcTagEmpty }).nullable(),
      objstatus: apiField(GuestUpdate, 'objstatus'),
      selfie: serverText(512),
      source: serverText(32),
      checked_in_at: ninstant,
      attention: laterFlag,
      notes: apiField(GuestCreate, 'notes'),
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
    columns: { text_answer: requiredBlankableText(TEXT_ANSWER_MAX).nullable() },
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
    uid: apiField(CheckinCreate, 'uid'),
    door: { create: true, update: true },
    refs: [
      { column: 'guest_id', table: 'guests', key: 'guest_uid' },
      { column: 'session_id', table: 'sessions', key: 'session_uid', nullable: true },
    ],
    columns: { direction: apiField(CheckinCreate, 'direction'), scanned_at: instant, station: apiField(CheckinCreate, 'station'), undone_at: ninstant },
  },
  {
    // The badge print log (issue 39): records are never changed, only added, like scans. Who
    // printed travels by name; the local user or key id (`printed_by`) stays on its laptop.
    name: 'badge_prints',
    onEvent: true,
    door: { create: true, update: false },
    refs: [{ column: 'guest_id', table: 'guests', key: 'guest_uid' }],
    columns: { station: apiField(CheckinCreate, 'station'), printed_by_name: serverText(255).nullable(), printed_at: instant },
  },
  {
    name: 'promotion_codes',
    onEvent: true,
    refs: [],
    columns: {
      code: apiField(PromotionCodeCreate, 'code'), discount_type: apiField(PromotionCodeCreate, 'discount_type'),
      discount_amount: apiField(PromotionCodeCreate, 'discount_amount'), quantity: apiField(PromotionCodeCreate, 'quantity'), used: count,
      starts: nwallClock, ends: nwallClock, available_only: bool,
    },
    rules: (r) => promotionCodeRuleErrors(r as unknown as PromotionCodeRules),
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

/** Tables a door role never reads (DESIGN "Identity": promotion codes are set-up), so its event files leave them out. */
export const DOOR_HIDDEN_TABLES = ['promotion_codes', 'promotion_code_registration_types'] as const;

/** Every table an event file may hold, in file order. */
export const EVENT_FILE_TABLES = ['events', ...EVENT_TABLES.map((t) => t.name)];

/** What the database side needs to know of each table: its name, columns and parents. */
export const EVENT_TABLE_LAYOUTS: TableLayout[] = EVENT_TABLES.map((def) => ({ ...def, columns: Object.keys(def.columns) }));

export const EventRecord = z
  .object({
    uid: uuid(),
    created: time,
    modified: time,
    name: EventCreate.shape.name,
    starts: EventCreate.shape.starts,
    ends: EventCreate.shape.ends,
    timezone: EventCreate.shape.timezone,
  })
  .superRefine(spanInOrder('event'));

/** The event's group as the file carries it, so a laptop without it can create it. */
export const GroupRecord = z.object({
  uid: uuid(),
  name: GroupCreate.shape.name,
  type: z.string().pipe(GroupCreate.shape.type.unwrap()),
  email: GroupCreate.shape.email.transform((v) => v ?? null),
  phone: GroupCreate.shape.phone.transform((v) => v ?? null),
  website: GroupCreate.shape.website.transform((v) => v ?? null),
});
export type GroupRecord = z.infer<typeof GroupRecord>;

export function recordSchema(def: TableDef) {
  // Records name their parents by uid: a UUID, as Doorlist makes every record's uid.
  const refs = Object.fromEntries(def.refs.map((r) => [r.key, r.nullable ? uuid().nullable() : uuid()]));
  const record = z.object({ uid: def.uid ?? uuid(), created: time, modified: time, ...def.columns, ...refs });
  const { rules } = def;
  if (!rules) return record;
  return record.superRefine((r, ctx) => {
    for (const [field, messages] of Object.entries(rules(r))) for (const message of messages) ctx.addIssue({ code: 'custom', path: [field], message });
  });
}

/** The first thing wrong with a record, as the API would say it: `field: message`. */
export function firstProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'record'}: ${issue.message}` : 'invalid';
}
