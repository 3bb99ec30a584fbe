import { domainToASCII } from 'node:url';
import { z } from './zod';
import { normaliseDatetime } from '../../core/time';
import { MSG } from '../../core/messages';
import { spanErrors, type Span, type SpanKind } from '../../core/spans';

/** Message for a value of the wrong JSON type: missing, null, or anything else. */
function typeError(otherwise: string) {
  return (issue: { input?: unknown }) =>
    issue.input === undefined ? MSG.required : issue.input === null ? MSG.notNull : otherwise;
}

/** NUL cannot be typed, only injected; stored, it truncates the text in C-based readers and exports. */
export const hasNoNul = (value: string) => !value.includes('\u0000');

/** Scanners and spreadsheets send numeric codes: a finite number is taken as its digits. */
export const numberAsDigits = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? String(value) : value);

// Zero-width space, word joiner, BOM and Mongolian vowel separator: invisible, never meant.
// (ZWNJ and ZWJ are kept in text: Persian, Indic scripts and emoji need them.)
const INVISIBLE_IN_TEXT = /[\u200B\u2060\uFEFF\u180E]/g;
// In a code every format character (zero-width, joiners, bidi marks, soft hyphen) is noise.
const INVISIBLE_IN_CODES = /[\p{Cf}\u180E]/gu;

/**
 * Text as stored and matched: NFC (an "é" typed on a Mac and one pasted from Windows are the
 * same) without invisible characters. Every text helper below applies it.
 */
export const canonicalText = (value: string) => value.normalize('NFC').replace(INVISIBLE_IN_TEXT, '');

/** A barcode or NFC tag as stored and matched: NFC, every invisible format character removed. */
export const canonicalCode = (value: string) => value.normalize('NFC').replace(INVISIBLE_IN_CODES, '');

/**
 * A guest's barcode or NFC tag, or a scanned one: canonical, trimmed, 1 to 128 characters. Guest
 * create and update, the CSV import and the scan all read codes through this, so a code
 * matches whatever way it was typed, pasted or scanned.
 */
export function codeText(messages: { empty: string; invalid?: (issue: { input?: unknown }) => string }) {
  return z
    .string({ error: messages.invalid ?? MSG.invalidString })
    .overwrite(canonicalCode)
    .trim()
    .min(1, { error: messages.empty })
    .max(128, { error: 'Ensure this field has no more than 128 characters.' })
    .refine(hasNoNul, { error: MSG.nullCharacter });
}

/** What the document says of a non-blank string: a character that is not whitespace (it is trimmed before its length is counted). */
const NOT_BLANK = '\\S';

/** A required, non-blank string (surrounding whitespace trimmed). */
export function requiredText(max = 255) {
  return z
    .string({ error: typeError(MSG.invalidString) })
    .overwrite(canonicalText)
    .trim()
    .min(1, { error: MSG.blank })
    .max(max, { error: `Ensure this field has no more than ${max} characters.` })
    .refine(hasNoNul, { error: MSG.nullCharacter })
    .openapi({ pattern: NOT_BLANK });
}

/** A required string that may be blank (the spec's last_name, email, description). */
export function requiredBlankableText(max = 255) {
  return z
    .string({ error: typeError(MSG.invalidString) })
    .overwrite(canonicalText)
    .trim()
    .max(max, { error: `Ensure this field has no more than ${max} characters.` })
    .refine(hasNoNul, { error: MSG.nullCharacter });
}

/** An optional text field: omitted stays undefined, null or "" mean "unset" and store null. */
export function optionalText(max = 255) {
  return z
    .string({ error: typeError(MSG.invalidString) })
    .overwrite(canonicalText)
    .trim()
    .max(max, { error: `Ensure this field has no more than ${max} characters.` })
    .refine(hasNoNul, { error: MSG.nullCharacter })
    .nullish()
    .transform((v) => (v === '' ? null : v));
}

const asciiEmail = z.email();

/**
 * An address as Django's validator takes it: surrounding spaces trimmed (pasted addresses carry
 * them), an internationalised domain checked in its punycode form, `localhost` allowed.
 */
function isEmailAddress(value: string): boolean {
  const at = value.lastIndexOf('@');
  if (at < 1 || value.length > 254) return false;
  const domain = value.slice(at + 1);
  if (domain.toLowerCase() === 'localhost') return asciiEmail.safeParse(`${value.slice(0, at)}@localhost.example`).success;
  const ascii = domainToASCII(domain);
  return ascii !== '' && asciiEmail.safeParse(`${value.slice(0, at)}@${ascii}`).success;
}

/** A door station's name in a query (a heartbeat, a filter): trimmed, not blank, 128 characters at most. */
export function stationName() {
  return z.string({ error: MSG.invalidString }).trim().min(1, { error: MSG.blank }).max(128, { error: MSG.invalidStation }).optional();
}

export function optionalEmail() {
  return z
    .string({ error: MSG.invalidEmail })
    .trim()
    .refine((v) => v === '' || isEmailAddress(v), { error: MSG.invalidEmail })
    .nullish()
    .transform((v) => (v === '' ? null : v))
    .openapi({ format: 'email', description: 'An e-mail address (an internationalised domain is taken); "" or null leaves it unset.' });
}

const INTEGER_STRING = /^-?\d{1,15}$/;

/** An integer, also accepted as a numeric string (form posts and query strings send strings). */
export function integer() {
  return z.preprocess(
    (v) => (typeof v === 'string' && INTEGER_STRING.test(v.trim()) ? Number(v.trim()) : v),
    z
      .number({ error: typeError(MSG.invalidInteger) })
      .int({ error: MSG.invalidInteger })
      .min(-2147483648, { error: MSG.invalidInteger })
      .max(2147483647, { error: MSG.invalidInteger }),
  );
}

export function nonNegativeInteger() {
  // zod-to-openapi documents a pipe by its input: the range it answers is said here.
  return integer()
    .pipe(z.number().min(0, { error: 'Ensure this value is greater than or equal to 0.' }))
    .openapi({ minimum: 0 });
}

export function number() {
  return z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
    z.number({ error: typeError(MSG.invalidNumber) }).finite({ error: MSG.invalidNumber }),
  );
}

const TRUE_VALUES = new Set([true, 'true', 'True', '1', 1, 'yes', 'on']);
const FALSE_VALUES = new Set([false, 'false', 'False', '0', 0, 'no', 'off']);

/** A boolean, also accepted as true/false, 1/0 strings, as form posts and query strings send them. */
export function boolean() {
  return z.preprocess(
    (v) => (TRUE_VALUES.has(v as never) ? true : FALSE_VALUES.has(v as never) ? false : v),
    z.boolean({ error: typeError(MSG.invalidBoolean) }),
  );
}

const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?$/;
const DATE_AND_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/;

/** Whether the `YYYY-MM-DD[Thh:mm[:ss]]` a value starts with exists: 30 February and 24:00 do not. */
export function isRealDateAndTime(value: string): boolean {
  const m = DATE_AND_TIME.exec(value);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1).map((part) => Number(part ?? 0));
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && h < 24 && mi < 60 && s < 60;
}

const isRealDatetime = (value: string) => DATETIME.test(value) && isRealDateAndTime(value);

/** The earliest a scan may have happened, and how far past the server's clock (a door's clock runs fast). */
export const SCAN_TIME_EARLIEST = '2000-01-01T00:00:00';
export const SCAN_TIME_AHEAD_MS = 24 * 60 * 60 * 1000;

/** Whether a scan's time (UTC, `YYYY-MM-DDThh:mm:ss`, a zone allowed) is one a door could have seen. */
export function isPlausibleScanTime(value: string, nowMs = Date.now()): boolean {
  const ms = Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value.replace(' ', 'T')}Z`);
  return ms >= Date.parse(`${SCAN_TIME_EARLIEST}Z`) && ms <= nowMs + SCAN_TIME_AHEAD_MS;
}

/** When a scan happened (UTC): the spec's Datetime, from 2000 to a day past the server's clock. */
export function scanTime() {
  return datetime().refine((value) => isPlausibleScanTime(value), { error: MSG.scanTimeOutOfRange });
}

/**
 * A client's scan id: 1 to 64 characters of printable ASCII, no spaces or control characters
 * (a door screen sends a UUID). A replay of the same uid gets the first answer again.
 */
export function scanUid() {
  return z
    .string({ error: MSG.invalidString })
    .trim()
    .min(1, { error: MSG.blank, abort: true })
    .max(64, { error: 'Ensure this field has no more than 64 characters.', abort: true })
    .regex(/^[\x21-\x7e]+$/, { error: MSG.scanUidInvalid });
}

/** A record's uid as Doorlist makes them: a UUID in its canonical text form. */
export function uuid() {
  return z.string({ error: MSG.invalidString }).regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { error: MSG.uuidInvalid });
}

/** The spec's Datetime: `YYYY-MM-DDThh:mm` (seconds allowed), stored with seconds. */
export function datetime() {
  return z
    .string({ error: typeError(MSG.datetimeFormat) })
    .refine(isRealDatetime, { error: MSG.datetimeFormat, abort: true })
    .transform(normaliseDatetime)
    .openapi({ type: 'string', pattern: DATETIME.source, example: '2026-12-31T20:00', description: 'A wall-clock time `YYYY-MM-DDThh:mm` (seconds allowed); answered with seconds.' });
}

/** One of fixed values; a missing value is "required", a wrong one gets `invalidMessage`. */
export function choice<const T extends readonly [string, ...string[]]>(values: T, invalidMessage: string) {
  return z.enum(values, { error: typeError(invalidMessage) });
}

/**
 * A path parameter id: plain digits only (not `1.0`, `0x1` or `1e0`), 1 to 2^31-1; anything
 * else answers the resource's 404 as if the record did not exist.
 */
export const pathId = z
  .string()
  .regex(/^\d{1,10}$/)
  .transform(Number)
  .pipe(z.number().int().min(1).max(2147483647))
  .openapi({ type: 'integer', minimum: 1, maximum: 2147483647 });

export const IdResponse = z.object({ id: z.number().int() }).openapi('IdResponse');
// The spec's error bodies, one component each, which every route's error answers are built from.
export const DetailResponse = z
  .object({ detail: z.string() })
  .openapi('Detail', { description: 'One message: `{"detail": "Event not found."}`. Every 401, 403, 413, 415, 429 and 503, and the 400 of a body that is not a JSON object.' });
export const DetailsResponse = z
  .object({ details: z.union([z.string(), z.array(z.string())]) })
  .openapi('Details', { description: 'One message (or several) under `details`, where the spec writes it so: `{"details": "Guest not found."}`.' });
export const FieldErrorsResponse = z
  .record(z.string(), z.array(z.string()))
  .openapi('FieldErrors', {
    description: 'Refused input, by top-level field: `{"name": ["This field is required."]}`; an error of no one field is under `non_field_errors`.',
  });

/** A start no later than its end (core/spans.ts), as a schema's refinement. */
export function spanInOrder(kind: SpanKind) {
  return (value: Partial<Span>, ctx: { addIssue: (issue: { code: 'custom'; path: string[]; message: string }) => void }) => {
    for (const [path, [message]] of Object.entries(spanErrors(kind, value))) ctx.addIssue({ code: 'custom', path: [path], message });
  };
}
