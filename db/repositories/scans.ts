/**
 * The statements of a batch of scans (a lone scan is a batch of one): its reads, sent at once,
 * and its writes. No decision here: server/services/scans.ts runs a batch and
 * server/services/scan-decisions.ts decides it on these reads.
 */
import type { Knex } from 'knex';
import { isDeepStrictEqual } from 'node:util';
import type { Trx } from '../knex';
import { isUniqueViolation, uniqueKey } from '../errors';
import { visibleEventsQuery, type EventRow } from './events';
import { dialectOf } from '../dialect';
import { jsonArrayText, jsonObjectText, jsonRowsText } from '../dialect/json';
import { sentAtOnce } from '../write-transaction';
import type { CheckinRow } from './checkins';

export interface ScanGuestRow {
  id: number;
  event_id: number;
  first_name: string;
  last_name: string;
  email: string;
  company: string | null;
  registration_type_id: number;
  registration_type_name: string;
  barcode: string;
  nfc_tag: string | null;
  objstatus: number;
  checked_in_at: string | null;
  attention: number;
  notes: string | null;
  registration_type_attention: number;
  /** JSON text: the guest's answers to questions shown at the door, a row per answer (null: none). */
  door_answers: string | null;
}


export interface ScanSessionRow {
  id: number;
  event_id: number;
  access_control: number | boolean;
  auto_registration: number | boolean;
}

export type NewCheckin = Omit<CheckinRow, 'undone_at' | 'id'>;


/** A uid's remembered answer (`body`), or the check-in an event file brought under it. */
export interface RememberedRow {
  event_id: number;
  uid: string;
  body: string | null;
  checkin_id: number | null;
}

export interface BatchReads {
  /** The batch's events anyone in scope could see, with what scope is decided on. */
  visible: Pick<EventRow, 'id' | 'group_id'>[];
  earlierRows: RememberedRow[];
  guestRows: ScanGuestRow[];
  sessionRows: ScanSessionRow[];
  checkinIds: number[];
}


// ---------------------------------------------------------------------------------------
// SQL built once per shape

/** Each statement's SQL by dialect and shape (what it is and how many values of each kind it binds). */
const builtSql = new Map<string, string>();

/**
 * A statement of a batch, built by knex's builder once per shape and dialect and kept as SQL
 * text, then sent as knex.raw with this batch's `bindings`: building and compiling a query is
 * a few times the CPU of binding one, and a scan sends several. The first build of a shape
 * checks that `bindings` are the builder's own, in its order; the rows come back as the
 * builder's would.
 */
async function shaped<R>(trx: Trx, shape: string, bindings: readonly unknown[], build: () => Knex.QueryBuilder | Knex.Raw): Promise<R[]> {
  const dialect = dialectOf(trx).name;
  const key = `${dialect} ${shape}`;
  let sql = builtSql.get(key);
  if (sql === undefined) {
    const built = build().toSQL();
    if (!isDeepStrictEqual([...built.bindings], [...bindings])) throw new Error(`${shape}: the bindings given are not the builder's`);
    sql = built.sql;
    builtSql.set(key, sql);
  }
  const result = await trx.raw(sql, bindings as Knex.RawBinding[]);
  return (dialect === 'postgres' ? (result as { rows: R[] }).rows : result) as R[];
}

/**
 * The guest `g`'s answers to the event's active questions marked show_at_door, as JSON text,
 * choices by their text. Found on guest_answers' guest_id index: a guest who answered nothing
 * costs one probe of it.
 */
function doorAnswersSql(trx: Trx): string {
  const row = jsonObjectText(trx, [
    ['question_id', 'q.id'],
    ['question', 'q.question'],
    ['answer', "case when a.choice_id is null then coalesce(a.text_answer, '') else coalesce(c.answer, '') end"],
  ]);
  return (
    `(select ${jsonArrayText(row, 'q.id, c.position, c.id, a.id')} from guest_answers a ` +
    'join custom_questions q on q.id = a.question_id left join question_choices c on c.id = a.choice_id ' +
    'where a.guest_id = g.id and q.show_at_door and q.objstatus = 1)'
  );
}

function scanGuests(trx: Trx, eventIds: number[]) {
  return trx<ScanGuestRow>('guests as g')
    .join('registration_types as rt', 'rt.id', 'g.registration_type_id')
    .whereIn('g.event_id', eventIds)
    .select(
      'g.id',
      'g.event_id',
      'g.first_name',
      'g.last_name',
      'g.email',
      'g.company',
      'g.registration_type_id',
      'rt.name as registration_type_name',
      'g.barcode',
      'g.nfc_tag',
      'g.objstatus',
      'g.checked_in_at',
      'g.attention',
      'g.notes',
      'rt.attention as registration_type_attention',
      trx.raw(`${doorAnswersSql(trx)} as door_answers`),
    );
}

const SCAN_UID_KEYS = [uniqueKey('checkins', ['uid', 'event_id'], 'checkins_uid_event_unique'), uniqueKey('scan_replies', ['event_id', 'uid'], 'scan_replies_event_uid_unique')];

/**
 * Runs a scan's whole transaction again when another transaction stored the same uid first
 * (copies of one queued scan replayed at once on PostgreSQL, where the unique index, not a
 * single writer, decides): the rerun finds the first answer and returns it.
 */
export async function retryOnScanUidRace<T>(scan: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await scan();
    } catch (err) {
      if (attempt >= 3 || !SCAN_UID_KEYS.some((key) => isUniqueViolation(err, key))) throw err;
    }
  }
}

// ---------------------------------------------------------------------------------------
// The batch's reads

/** The remembered answers of these uids, and the check-ins an event file brought with them. */
function rememberedOfUids(trx: Trx, eventIds: number[], uids: string[]) {
  return trx('scan_replies')
    .whereIn('event_id', eventIds)
    .whereIn('uid', uids)
    .select('event_id', 'uid', 'body', trx.raw('NULL AS checkin_id'))
    .unionAll((q) => q.from('checkins').whereIn('event_id', eventIds).whereIn('uid', uids).select('event_id', 'uid', trx.raw('NULL AS body'), 'id AS checkin_id'));
}

/**
 * The batch's visible events and the remembered answers of its uids, in one statement: each
 * read a column of JSON text (an array a row), so two reads of different shapes cost one
 * statement's preparing and round trip. On SQLite the ids the event door's new check-ins will
 * take come as a third column; PostgreSQL draws them from the sequence beside it.
 */
async function eventsAndRemembered(trx: Trx, eventIds: number[], uids: string[], newCheckins: number): Promise<Pick<BatchReads, 'visible' | 'earlierRows' | 'checkinIds'>> {
  const inline = dialectOf(trx).nextIdsInline;
  const events = visibleEventsQuery(trx, eventIds).select('id', 'group_id').toSQL();
  const remembered = uids.length === 0 ? undefined : rememberedOfUids(trx, eventIds, uids).toSQL();
  const lastId = inline && newCheckins > 0 ? `, ${inline.column('checkins')} as last_checkin` : '';
  const bindings = [...eventIds, ...(uids.length === 0 ? [] : [...eventIds, ...uids, ...eventIds, ...uids])];
  const shape = `events and remembered ${eventIds.length} ${uids.length}${lastId ? ' last checkin' : ''}`;
  const [[row], drawn] = await sentAtOnce([
    shaped<{ events: string; remembered?: string; last_checkin?: unknown }>(trx, shape, bindings, () =>
      trx.raw(
        `select (select ${jsonRowsText(trx, ['id', 'group_id'])} from (${events.sql}) as e) as events` +
          (remembered ? `, (select ${jsonRowsText(trx, ['event_id', 'uid', 'body', 'checkin_id'])} from (${remembered.sql}) as r) as remembered` : '') +
          lastId,
        [...events.bindings, ...(remembered?.bindings ?? [])],
      ),
    ),
    inline ? undefined : dialectOf(trx).nextIds(trx, 'checkins', newCheckins),
  ]);
  const visible = (JSON.parse(row.events) as [number, number][]).map(([id, group_id]) => ({ id, group_id }));
  const earlierRows = row.remembered === undefined ? [] : (JSON.parse(row.remembered) as [number, string, string | null, number | null][]).map(([event_id, uid, body, checkin_id]) => ({ event_id, uid, body, checkin_id }));
  const checkinIds = drawn ?? (inline && newCheckins > 0 ? inline.ids(row.last_checkin, newCheckins) : []);
  return { visible, earlierRows, checkinIds };
}

/**
 * The guests the scans name, by barcode, NFC tag or id. SQLite, planning without statistics,
 * walked every guest of the event for one statement ORing the kinds: it reads each kind by its
 * own index (a guest named twice comes back twice). PostgreSQL locks them until commit in one
 * statement: locking kind after kind, two processes' batches could each wait for the other.
 */
async function guestsOfScans(trx: Trx, eventIds: number[], codes: ScanCodes): Promise<ScanGuestRow[]> {
  const named = [
    { column: 'g.barcode', values: codes.barcodes },
    { column: 'g.nfc_tag', values: codes.nfcTags },
    { column: 'g.id', values: codes.guestIds },
  ].filter((kind) => kind.values.length > 0);
  if (named.length === 0) return [];
  if (dialectOf(trx).name === 'postgres') {
    const shape = `guests locked ${eventIds.length} ${named.map((kind) => `${kind.column} ${kind.values.length}`).join(' ')}`;
    return shaped(trx, shape, [...eventIds, ...named.flatMap((kind): unknown[] => kind.values)], () =>
      scanGuests(trx, eventIds)
        .where((q) => named.forEach((kind) => q.orWhereIn(kind.column, kind.values as (string | number)[])))
        .forUpdate('g'),
    );
  }
  const byKind = named.map((kind) =>
    shaped<ScanGuestRow>(trx, `guests ${eventIds.length} ${kind.column} ${kind.values.length}`, [...eventIds, ...kind.values], () =>
      scanGuests(trx, eventIds).whereIn(kind.column, kind.values as (string | number)[]),
    ),
  );
  return (await sentAtOnce(byKind)).flat();
}

/** The session doors the scans name, of the batch's events. */
async function sessionsOfScans(trx: Trx, eventIds: number[], sessionIds: readonly number[]): Promise<ScanSessionRow[]> {
  if (sessionIds.length === 0) return [];
  return trx('sessions').whereIn('id', [...new Set(sessionIds)]).whereIn('event_id', eventIds).select('id', 'event_id', 'access_control', 'auto_registration');
}

/** What a batch's scans name: its events, uids, codes and ids, and how many check-ins the event door may write. */
export interface ScanCodes {
  eventIds: number[];
  uids: string[];
  barcodes: string[];
  nfcTags: string[];
  guestIds: number[];
  sessionIds: number[];
  /** Scans at the event door: the ids their check-ins would take are drawn beforehand. */
  eventDoorScans: number;
}

/**
 * Every read a batch is decided on, sent at once: the events (scope is decided on them) and the
 * remembered answers of the uids (one statement), the guests (locked on PostgreSQL), the session doors and the
 * ids the event-door check-ins will take (known before they are written, so the answers that
 * hold them go in with them).
 */
export async function readScanBatch(trx: Trx, codes: ScanCodes): Promise<BatchReads> {
  const { eventIds } = codes;
  const [{ visible, earlierRows, checkinIds }, guestRows, sessionRows] = await sentAtOnce([
    eventsAndRemembered(trx, eventIds, codes.uids, codes.eventDoorScans),
    guestsOfScans(trx, eventIds, codes),
    sessionsOfScans(trx, eventIds, codes.sessionIds),
  ]);
  return { visible, earlierRows, guestRows, sessionRows, checkinIds };
}

/** Where guests already in at the event door came in: the station of each one's last standing scan when it was an 'in'. */
export async function standingStations(trx: Trx, eventIds: number[], guestIds: number[]): Promise<Map<number, string | null>> {
  const lastIds = dialectOf(trx)
    .whereInUnindexed(trx('checkins'), 'event_id', eventIds)
    .whereIn('guest_id', guestIds)
    .whereNull('session_id')
    .whereNull('undone_at')
    .groupBy('guest_id')
    .max('id');
  const rows: Pick<CheckinRow, 'guest_id' | 'direction' | 'station'>[] = await trx('checkins').whereIn('id', lastIds).select('guest_id', 'direction', 'station');
  return new Map(rows.map((r) => [r.guest_id, r.direction === 'in' ? r.station : null]));
}

// ---------------------------------------------------------------------------------------
// Session doors and check-ins, one scan at a time

/** The guest's last scan still standing at the event door (session null) or at a session. */
export function lastStanding(trx: Trx, eventId: number, guestId: number, sessionId: number | null): Promise<Pick<CheckinRow, 'direction' | 'scanned_at' | 'station'> | undefined> {
  return trx<CheckinRow>('checkins')
    .where({ event_id: eventId, guest_id: guestId, session_id: sessionId })
    .whereNull('undone_at')
    .orderBy('id', 'desc')
    .first('direction', 'scanned_at', 'station');
}

/**
 * Locks the guest's row (an update that changes nothing) until the caller's transaction ends:
 * scans of one guest at any session queue behind each other in every process and database.
 */
export async function lockGuest(trx: Trx, guestId: number): Promise<void> {
  await trx('guests').where({ id: guestId }).update({ modified: trx.ref('modified') });
}

/** Writes one check-in, with who scanned it; its id. */
export async function insertCheckin(trx: Trx, row: NewCheckin, scannedBy: string | null): Promise<number> {
  const [{ id }] = await trx('checkins').insert({ ...row, scanned_by: scannedBy }).returning('id');
  return id;
}

/** A check-in an event file brought, and its guest as a scan answers with it. */
export async function importedCheckin(trx: Trx, eventId: number, checkinId: number): Promise<{ row: CheckinRow; guest: ScanGuestRow }> {
  const row = (await trx<CheckinRow>('checkins').where({ id: checkinId }).first()) as CheckinRow;
  return { row, guest: (await scanGuests(trx, [eventId]).where('g.id', row.guest_id).first()) as ScanGuestRow };
}

// ---------------------------------------------------------------------------------------
// The event door's writes

/** Event-door check-ins, in one statement, each with who scanned it. */
export async function insertCheckins(trx: Trx, rows: (NewCheckin & { id: number; scanned_by: string | null })[]): Promise<void> {
  if (rows.length === 0) return;
  // knex writes the columns in their sorted order, each row's values in it.
  const columns = Object.keys(rows[0]).sort() as (keyof (typeof rows)[number])[];
  await shaped(trx, `insert checkins ${rows.length} ${columns.join(' ')}`, rows.flatMap((row) => columns.map((column) => row[column])), () => trx('checkins').insert(rows));
}

/** Answers remembered under their uids: a scan sent again gets its first answer. */
export async function rememberAnswers(trx: Trx, replies: { uid: string; eventId: number; body: Record<string, unknown> }[], now: string): Promise<void> {
  if (replies.length === 0) return;
  const rows = replies.map((r) => ({ body: JSON.stringify(r.body), created: now, event_id: r.eventId, modified: now, uid: r.uid }));
  // In knex's order: the columns sorted, as the rows above list them.
  const bindings = rows.flatMap((row) => [row.body, row.created, row.event_id, row.modified, row.uid]);
  await shaped(trx, `insert scan_replies ${rows.length}`, bindings, () => trx('scan_replies').insert(rows));
}

/**
 * Moves the event-door state of `moved` guests, each only if it still holds what was read
 * (`read`); `next` is each one's new checked_in_at. The count of rows changed: short when a
 * guest changed since it was read.
 */
export async function compareAndSetDoorState(
  trx: Trx,
  moved: number[],
  read: ReadonlyMap<number, { checked_in_at: string | null; objstatus: number }>,
  next: ReadonlyMap<number, string | null>,
  now: string,
): Promise<number> {
  const sameAsRead = dialectOf(trx).sameAsBound('checked_in_at');
  // The bindings in the statement's order: the new states, the stamp, the ids, then what each guest held.
  const cases = moved.flatMap((id) => [id, next.get(id) ?? null]);
  const held = moved.flatMap((id) => [id, read.get(id)!.objstatus, read.get(id)!.checked_in_at]);
  const changed = await shaped(trx, `door state ${moved.length}`, [...cases, now, ...moved, ...held], () =>
    trx('guests')
      .whereIn('id', moved)
      .where((q) => {
        for (const id of moved) {
          const was = read.get(id)!;
          q.orWhere((g) => g.where({ id, objstatus: was.objstatus }).whereRaw(sameAsRead, [was.checked_in_at]));
        }
      })
      .update({
        // ELSE keeps the column's type for PostgreSQL; the WHERE leaves only moved guests.
        checked_in_at: trx.raw(`CASE ${moved.map(() => 'WHEN id = ? THEN ?').join(' ')} ELSE checked_in_at END`, cases),
        modified: now,
      })
      .returning('id'),
  );
  return changed.length;
}
