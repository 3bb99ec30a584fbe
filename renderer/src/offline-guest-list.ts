import type { Api } from './api';
import { searchTerms, searchWords } from '../../core/search-terms';
import { doorDecision, guestDoorState } from '../../core/scan';
import { swapCase } from './checkin';
import { GUEST_STORE, META_STORE, run, writeGeneration } from './local-db';
import type { CodeKind, Direction, DoorAnswer, GuestSummary, ScanStatus } from './types';

/** A guest as this station keeps it: the list's fields plus where they were let in. */
export interface OfflineGuest extends GuestSummary {
  eventId: number;
  registration_type: number;
  objstatus: string;
  checked_in_at: string | null;
  /** The station of the entry that stands, from the check-ins delta or this station's own scan. */
  checked_in_station?: string | null;
  /** The guest's answers as the guest list gives them (a walk-in made offline has none). */
  custom_questions?: { question_id: number; answer: { answer: string }[] }[];
}

/** An active question marked show_at_door: its answers travel with a scan's guest. */
interface DoorQuestion {
  id: number;
  question: string;
}

interface CopyMeta {
  key: string;
  /** The guest list's `start_time` of the last load: the next delta's `timestamp`. */
  since: string;
  /** The questions shown at the door as of that load. */
  doorQuestions?: DoorQuestion[];
}

interface QuestionRow {
  id: number;
  question: string;
  objstatus: string;
  show_at_door: boolean;
}

interface ListPage<T> {
  count?: number;
  results: T[];
  next?: string | null;
  start_time?: string;
}

interface CheckinRow {
  guest_id: number;
  direction: Direction;
  station: string | null;
  scanned_at: string;
  undone_at: string | null;
}

const PAGE_SIZE = 1000;
// Pages of a whole list asked for at once: the server builds the next page while this
// station parses the last, and on two read connections at once (a 100k list loads in about
// two thirds of the time one page after another takes).
export const WHOLE_LIST_PAGES_IN_FLIGHT = 2;
const metaKey = (eventId: number) => `guests:${eventId}`;
// Splits a guest's search terms; whitespace, so never inside a term or a search word.
const TERM_START = '\n';

/**
 * Every page of a list, in order, with up to `inFlight` asked for at once. How many pages
 * there are comes from the first page's count and size; a list that grew meanwhile is
 * followed on by its `next` links, and once a page has none no further page is asked for.
 * Only a whole list may be asked for several pages at once. A `timestamp` delta must go one
 * page after another: a guest checked in meanwhile joins the delta and moves the guests after
 * it one place on, so a later page served before an earlier one would skip a guest that the
 * next delta no longer brings (one after another, the move repeats a guest instead).
 */
export async function* listPages<T>(api: Api, pathOf: (page: number) => string, inFlight = 1): AsyncGenerator<ListPage<T>> {
  const ask = (page: number) => {
    const answer = api.get<ListPage<T>>(pathOf(page));
    // Read in order below; one failing while an earlier one is awaited must not go unhandled.
    answer.catch(() => undefined);
    return answer;
  };
  const first = await ask(1);
  const perPage = first.results?.length ?? 0;
  const counted = first.next && perPage > 0 ? Math.ceil((first.count ?? 0) / perPage) : 1;
  let asked = 1;
  let ended = !first.next;
  const asking: Promise<ListPage<T>>[] = [];
  const askAhead = () => {
    while (!ended && asking.length < inFlight && asked < counted) asking.push(ask(++asked));
  };
  // The next pages are on their way while the first is read.
  askAhead();
  yield first;
  for (;;) {
    askAhead();
    if (asking.length === 0) {
      if (ended) return;
      asking.push(ask(++asked));
    }
    const body = await (asking.shift() as Promise<ListPage<T>>);
    // Where the page just read leads, as one page after another would follow it.
    ended = !body.next;
    yield body;
  }
}

/**
 * One event's guest list, kept in IndexedDB and in memory: loaded whole once, then kept up
 * with `timestamp` deltas of the guests and check-ins. When the server cannot be reached the
 * door decides from it at once, exactly as the server would for the event's own door.
 */
export class OfflineGuestList {
  private byId = new Map<number, OfflineGuest>();
  private byBarcode = new Map<string, OfflineGuest>();
  private byTag = new Map<string, OfflineGuest>();
  /**
   * Each guest's search terms as the server's index files them (core/search-terms.ts), each
   * after a TERM_START: a word prefixes one of them exactly when TERM_START + word is in it.
   */
  private terms = new Map<number, string>();
  private since?: string;
  /** Question id to its text, for the questions shown at the door (DESIGN: `door_answers`). */
  private doorQuestions = new Map<number, string>();

  /** The wipe this copy was opened after: once the station wipes again, this copy writes nothing more. */
  private readonly generation = writeGeneration();

  private constructor(readonly eventId: number) {}

  /** Whether this copy may still write: no sign-out, 401 or change of event has wiped since it opened. */
  private get current(): boolean {
    return this.generation === writeGeneration();
  }

  /** The copy as stored (empty the first time). */
  static async open(eventId: number): Promise<OfflineGuestList> {
    const copy = new OfflineGuestList(eventId);
    try {
      const [guests, meta] = await Promise.all([
        run<OfflineGuest[]>(GUEST_STORE, 'readonly', (store) => store.index('eventId').getAll(eventId)),
        run<CopyMeta | undefined>(META_STORE, 'readonly', (store) => store.get(metaKey(eventId))),
      ]);
      for (const guest of guests) copy.index(guest);
      copy.since = meta?.since;
      copy.doorQuestions = new Map((meta?.doorQuestions ?? []).map((q) => [q.id, q.question]));
    } catch {
      // A browser without IndexedDB (private mode) keeps the copy in memory only.
    }
    return copy;
  }

  get size(): number {
    return this.byId.size;
  }

  get loaded(): boolean {
    return this.since !== undefined;
  }

  private index(guest: OfflineGuest): void {
    const old = this.byId.get(guest.id);
    if (old?.barcode) this.byBarcode.delete(old.barcode);
    if (old?.nfc_tag) this.byTag.delete(old.nfc_tag);
    this.byId.set(guest.id, guest);
    this.terms.set(guest.id, TERM_START + searchTerms(guest).join(TERM_START));
    if (guest.barcode) this.byBarcode.set(guest.barcode, guest);
    if (guest.nfc_tag) this.byTag.set(guest.nfc_tag, guest);
  }

  private async store(guests: OfflineGuest[]): Promise<void> {
    if (!guests.length || !this.current) return;
    await run(GUEST_STORE, 'readwrite', (store) => {
      for (const guest of guests) store.put(guest);
    }).catch(() => undefined);
  }

  /** Brings the copy up to date: the whole list the first time, then what changed since. */
  async refresh(api: Api): Promise<void> {
    const since = this.since;
    const changed: OfflineGuest[] = [];
    let startTime: string | undefined;
    const query = (page: number) => `page=${page}&page_size=${PAGE_SIZE}${since ? `&timestamp=${encodeURIComponent(since)}` : ''}`;
    // A whole list comes several pages at once; a delta one page after another (listPages).
    const inFlight = since ? 1 : WHOLE_LIST_PAGES_IN_FLIGHT;
    const guestPages = listPages<GuestSummary & { registration_type: number; objstatus: string; checked_in_at: string | null }>(api, (page) => `/events/${this.eventId}/guests?${query(page)}`, inFlight);
    for await (const body of guestPages) {
      // Pages asked for together may be served in either order: the earliest start_time is
      // the one every page's snapshot comes after, so the next delta misses nothing.
      if (body.start_time && (!startTime || body.start_time < startTime)) startTime = body.start_time;
      for (const guest of body.results ?? []) {
        const kept = this.byId.get(guest.id);
        changed.push({ ...guest, eventId: this.eventId, checked_in_station: guest.checked_in_at ? (kept?.checked_in_station ?? null) : null });
      }
    }
    for (const guest of changed) this.index(guest);
    // Who let each guest in: the stations of the check-ins that stand, oldest first.
    for await (const body of listPages<CheckinRow>(api, (page) => `/events/${this.eventId}/checkins?${query(page)}`, inFlight)) {
      for (const checkin of body.results ?? []) {
        const guest = this.byId.get(checkin.guest_id);
        if (guest && checkin.direction === 'in' && !checkin.undone_at && guest.checked_in_at) {
          guest.checked_in_station = checkin.station;
          changed.push(guest);
        }
      }
    }
    // The questions come whole each time: a handful, and a flag changes no guest's delta.
    const doorQuestions: DoorQuestion[] = [];
    for await (const body of listPages<QuestionRow>(api, (page) => `/events/${this.eventId}/custom_questions?page=${page}&page_size=${PAGE_SIZE}`)) {
      for (const q of body.results ?? []) if (q.show_at_door && String(q.objstatus) === '1') doorQuestions.push({ id: q.id, question: q.question });
    }
    this.doorQuestions = new Map(doorQuestions.map((q) => [q.id, q.question]));
    await this.store(changed);
    if (startTime && this.current) {
      this.since = startTime;
      await run(META_STORE, 'readwrite', (store) => store.put({ key: metaKey(this.eventId), since: startTime, doorQuestions } satisfies CopyMeta)).catch(() => undefined);
    }
  }

  /**
   * The guest's answers to the questions shown at the door, as a scan's `door_answers` has
   * them: by question, several choices joined by "; ".
   */
  private doorAnswersOf(guest: OfflineGuest): DoorAnswer[] {
    return (guest.custom_questions ?? [])
      .flatMap((asked) => {
        const question = this.doorQuestions.get(asked.question_id);
        if (question === undefined || !asked.answer.length) return [];
        return [{ question_id: asked.question_id, question, answer: asked.answer.map((a) => a.answer).join('; ') }];
      })
      .sort((a, b) => a.question_id - b.question_id);
  }

  /**
   * The guest a code belongs to, tried as the door tries it (tag, then swapped case), with
   * their answers to the questions shown at the door, as a scan's guest carries them.
   */
  find(kind: CodeKind, code: string, nfcFallback: boolean): OfflineGuest | undefined {
    const guest = kind === 'guest_id' ? this.byId.get(Number(code)) : this.knownForm(kind, code, nfcFallback)?.guest;
    return guest && { ...guest, door_answers: this.doorAnswersOf(guest) };
  }

  /**
   * How a guest of this list holds a scanned code: as a barcode or an NFC tag (a keyboard-wedge
   * NFC reader types like a barcode reader), as typed or with its letters' case swapped (Caps
   * Lock). The door sends the scan in that form, so one request answers it.
   */
  knownForm(kind: Exclude<CodeKind, 'guest_id'>, code: string, nfcFallback: boolean): { kind: Exclude<CodeKind, 'guest_id'>; code: string; guest: OfflineGuest } | undefined {
    for (const candidate of [code, swapCase(code)]) {
      const byBarcode = kind === 'barcode' ? this.byBarcode.get(candidate) : undefined;
      if (byBarcode) return { kind: 'barcode', code: candidate, guest: byBarcode };
      const byTag = kind === 'nfc_tag' || nfcFallback ? this.byTag.get(candidate) : undefined;
      if (byTag) return { kind: 'nfc_tag', code: candidate, guest: byTag };
    }
    return undefined;
  }

  /** The server's answer for the event's door, from the copy. */
  decide(guest: OfflineGuest | undefined, direction: Direction): ScanStatus {
    return doorDecision(direction, guest && guestDoorState(guest));
  }

  /** This station's own scan, so the next one of the same guest is decided right. */
  async record(guestId: number, direction: Direction, at: string, station: string): Promise<void> {
    const guest = this.byId.get(guestId);
    if (!guest) return;
    const next = { ...guest, checked_in_at: direction === 'in' ? at : null, checked_in_station: direction === 'in' ? station : null };
    this.index(next);
    await this.store([next]);
  }

  /** A walk-in made while offline: in the copy at once, so search and scans find them. */
  async add(guest: OfflineGuest): Promise<void> {
    this.index(guest);
    await this.store([guest]);
  }

  /**
   * Name, e-mail, company, barcode or NFC tag, as the server's search matches them: every word,
   * case and accents ignored, prefixes a term of the guest.
   */
  search(term: string, limit: number): { count: number; results: OfflineGuest[] } {
    const needles = searchWords(term).map((w) => TERM_START + w);
    const matches: OfflineGuest[] = [];
    for (const [id, terms] of this.terms) {
      if (needles.every((n) => terms.includes(n))) matches.push(this.byId.get(id) as OfflineGuest);
    }
    matches.sort((a, b) => a.id - b.id);
    return { count: matches.length, results: matches.slice(0, limit) };
  }
}
