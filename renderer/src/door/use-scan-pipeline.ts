import { useCallback, useRef, useState } from 'react';
import { apiNow, detailOf, OfflineError, SessionExpiredError, type Api, type ApiAnswer } from '../api';
import { newUid } from '../../../core/uid';
import { resultOf, sendScan, type ScanSend } from '../checkin';
import type { GuestCopy } from '../guest-copy';
import { i18next } from '../i18n';
import type { QueuedItem, QueuedScan } from '../scan-queue';
import { beep } from '../sounds';
import type { LocalChange } from '../stats';
import type { CodeKind, Direction, GuestSummary, RegistrationType, ScanResult, SessionSummary } from '../types';
import { announcement, type Checking } from '../components/result-panel';
import { undoable, type LogEntry } from './use-scan-log';

/** The same code from this station within this time is the reader firing twice: one answer. */
export const REPEAT_GUARD_MS = 3000;
/** A scan waits this long for the server before the station decides from its copy. */
export const SCAN_TIMEOUT_MS = 2500;

const ACCEPTED = new Set(['checked_in', 'checked_out']);

export function needsAttention(guest: GuestSummary | undefined, types: RegistrationType[]): boolean {
  if (!guest) return false;
  const typeId = typeof guest.registration_type === 'number' ? guest.registration_type : undefined;
  return guest.attention === true || guest.registration_type_attention === true || types.some((t) => t.id === typeId && t.attention);
}

function typeIdOf(guest?: GuestSummary): number | undefined {
  const ref = guest?.registration_type;
  return typeof ref === 'number' ? ref : ref && typeof ref === 'object' ? ref.id : undefined;
}

export interface PipelineDeps {
  api: Api;
  eventId: number;
  station: string;
  nfcFallback: boolean;
  direction: Direction;
  session?: SessionSummary;
  types: RegistrationType[];
  copy?: GuestCopy;
  online: boolean;
  setReachable: (reachable: boolean) => void;
  log: { nextSerial: () => number; put: (entry: ScanResult) => void; update: (match: (e: LogEntry) => boolean, change: Partial<LogEntry>) => void };
  countStats: (change: Omit<LocalChange, 'at' | 'step' | 'expect'>) => void;
  forgetStats: (uid: string) => void;
  queue: { enqueue: (item: QueuedItem) => Promise<void>; flush: () => Promise<void>; withdraw: (uid: string) => Promise<boolean>; pending: number };
}

/**
 * One scan from code to answer: the repeat guard, the request, the station's own decision
 * from its copy when the server is out of reach (queued for replay), the answer on screen with
 * its sound, the counters and the log. Also what a replayed scan's answer means (a double
 * admission) and undo.
 */
export function useScanPipeline(deps: PipelineDeps) {
  const [result, setResult] = useState<ScanResult>();
  const [checking, setChecking] = useState<Checking>();
  const [spoken, setSpoken] = useState({ text: '', serial: 0 });
  // Admitted guests the door must stop for, until someone acknowledges each.
  const [attention, setAttention] = useState<ScanResult[]>([]);
  const [doubles, setDoubles] = useState<ScanResult[]>([]);
  const [notice, setNotice] = useState<string>();
  const shownSerial = useRef(0);
  const recent = useRef(new Map<string, { at: number; result?: ScanResult }>());
  const d = useRef(deps);
  d.current = deps;

  /** Shows an answer unless a later scan's answer is already on screen. */
  const show = useCallback((next: ScanResult, sound?: Parameters<typeof beep>[0]) => {
    d.current.log.put(next);
    setChecking((c) => (c && c.serial <= next.serial ? undefined : c));
    if (next.serial < shownSerial.current) return;
    shownSerial.current = next.serial;
    setResult(next);
    setSpoken({ text: announcement(next, d.current.types), serial: next.serial });
    beep(sound ?? next.outcome);
  }, []);

  /** Counters, the copy and the attention list follow an accepted scan at once. */
  const accepted = useCallback((next: ScanResult, send: Pick<ScanSend, 'direction' | 'sessionId' | 'station' | 'scannedAt' | 'uid'>) => {
    const { countStats, copy, types } = d.current;
    countStats({ uid: send.uid, delta: send.direction === 'in' ? 1 : -1, direction: send.direction, typeId: typeIdOf(next.guest), sessionId: send.sessionId, station: send.station, scannedAt: next.scannedAt ?? send.scannedAt });
    if (next.guest && send.sessionId === undefined) void copy?.record(next.guest.id, send.direction, next.scannedAt ?? send.scannedAt, send.station);
    const stop = send.direction === 'in' && needsAttention(next.guest, types);
    if (stop) setAttention((list) => [...list, next]);
    return stop;
  }, []);

  /** The station's own answer from its copy; the admissions wait in the queue for the server. */
  const decideOffline = useCallback(
    async (send: ScanSend, serial: number) => {
      const { copy, eventId, queue } = d.current;
      const queued: QueuedScan = { ...send, eventId, queuedAt: Date.now() };
      // Session rules (registrations, capacity) are the server's: such a scan waits undecided.
      if (!copy?.loaded || send.sessionId !== undefined) {
        try {
          await queue.enqueue(queued);
          show({ outcome: 'queued', code: send.label ?? send.code, sessionName: send.sessionName, serial, uid: send.uid, direction: send.direction, scannedAt: send.scannedAt });
        } catch {
          show({ outcome: 'refused', code: send.code, message: i18next.t('door:offline.cannotStore'), serial });
        }
        return;
      }
      const guest = copy.find(send.kind, send.code, send.nfcFallback);
      const outcome = copy.decide(guest, send.direction);
      const next: ScanResult = {
        outcome,
        code: send.label ?? send.code,
        guest,
        offline: true,
        uid: send.uid,
        serial,
        direction: send.direction,
        scannedAt: send.scannedAt,
        checkedInAt: outcome === 'already_checked_in' ? guest?.checked_in_at : undefined,
        checkedInStation: outcome === 'already_checked_in' ? guest?.checked_in_station : undefined,
      };
      if (!ACCEPTED.has(outcome)) {
        show(next);
        return;
      }
      try {
        await queue.enqueue({ ...queued, offlineOutcome: outcome });
      } catch {
        show({ outcome: 'refused', code: send.code, message: i18next.t('door:offline.cannotStore'), serial });
        return;
      }
      const stop = accepted(next, send);
      show(next, stop ? 'attention' : undefined);
    },
    [accepted, show],
  );

  /** One scan: typed, read by a reader or camera, or a guest picked from a list. */
  const scan = useCallback(
    async (kind: CodeKind, code: string, options: { direction?: Direction; label?: string } = {}) => {
      const { api, eventId, station, nfcFallback, direction, session, online, setReachable, log, queue } = d.current;
      const now = Date.now();
      const scanDirection = options.direction ?? direction;
      // Switching to check-out or to a session and scanning again is meant: a new scan.
      const guardKey = `${kind}:${code}:${scanDirection}:${session?.id ?? ''}`;
      if (kind !== 'guest_id') {
        const seen = recent.current.get(guardKey);
        if (seen && now - seen.at < REPEAT_GUARD_MS) {
          // The reader fired twice: the first answer stands (shown again once it is here).
          if (seen.result) {
            setResult(seen.result);
            beep(seen.result.outcome);
          }
          return;
        }
        for (const [key, value] of recent.current) if (now - value.at >= REPEAT_GUARD_MS) recent.current.delete(key);
      }
      const serial = log.nextSerial();
      const shownAs = options.label ?? code;
      const guard = { at: now, result: undefined as ScanResult | undefined };
      if (kind !== 'guest_id') recent.current.set(guardKey, guard);
      setChecking({ serial, code: shownAs });
      log.put({ outcome: 'checking', code: shownAs, serial });
      const send: ScanSend = {
        uid: newUid(),
        kind,
        code,
        nfcFallback: kind === 'barcode' && nfcFallback,
        direction: scanDirection,
        sessionId: session?.id,
        sessionName: session?.name,
        scannedAt: apiNow(),
        station,
        label: options.label,
      };
      const settle = (answer: ScanResult) => (guard.result = answer);
      if (!online) {
        await decideOffline(send, serial);
        return;
      }
      try {
        const answer = await sendScan(api, eventId, send, { timeoutMs: SCAN_TIMEOUT_MS });
        setReachable(true);
        const next = resultOf(answer, send, serial);
        // Where the first entry was, from the copy when the server's answer does not say.
        if (next.outcome === 'already_checked_in' && !next.checkedInStation && next.guest) {
          next.checkedInStation = d.current.copy?.find('guest_id', String(next.guest.id), false)?.checked_in_station;
        }
        settle(next);
        const stop = answer.status === 201 && next.checkinId !== undefined && accepted(next, send);
        show(next, stop ? 'attention' : undefined);
        if (queue.pending > 0) void queue.flush();
      } catch (err) {
        if (err instanceof SessionExpiredError) {
          // The screen goes back to sign-in; the guest was scanned all the same, so the scan
          // waits in the queue and is sent (with its uid and time) once someone signs in again.
          setChecking(undefined);
          await queue.enqueue({ ...send, eventId, queuedAt: Date.now() }).catch(() => undefined);
          return;
        }
        if (err instanceof OfflineError) {
          setReachable(false);
          await decideOffline(send, serial);
          return;
        }
        show({ outcome: 'refused', code, message: (err as Error).message, serial });
      }
    },
    [accepted, decideOffline, show],
  );

  /** The entry that stands for a double admission's guest, when the server's answer does not name its station. */
  const whoLetIn = useCallback(async (double: ScanResult) => {
    const { api, eventId } = d.current;
    try {
      const body = await api.get<{ results: { direction: string; station: string | null; scanned_at: string; uid: string }[] }>(`/events/${eventId}/checkins?guest_id=${double.guest!.id}`);
      const first = body.results.find((c) => c.direction === 'in' && c.uid !== double.uid);
      if (!first) return;
      setDoubles((list) => list.map((r) => (r.serial === double.serial ? { ...r, checkedInStation: first.station, checkedInAt: first.scanned_at } : r)));
      setResult((shown) => (shown?.serial === double.serial ? { ...shown, checkedInStation: first.station, checkedInAt: first.scanned_at } : shown));
    } catch {
      // The list says "another station" until then.
    }
  }, []);

  /** A queued scan's answer: the log learns it, and a different verdict is shown loudly. */
  const replayed = useCallback(
    (item: QueuedScan, answer: ApiAnswer) => {
      const { log } = d.current;
      const next = resultOf(answer, item, 0);
      log.update((e) => e.uid === item.uid, { checkinId: next.checkinId, replayed: true, ...(item.offlineOutcome ? {} : { outcome: next.outcome, guest: next.guest }) });
      if (!item.offlineOutcome && ACCEPTED.has(next.outcome)) accepted(next, item);
      // Counted when decided here; the server turned it away, so it will never count it.
      if (item.offlineOutcome && ACCEPTED.has(item.offlineOutcome) && !ACCEPTED.has(next.outcome)) d.current.forgetStats(item.uid);
      const admittedHere = item.offlineOutcome === 'checked_in';
      if (admittedHere && next.outcome === 'already_checked_in') {
        const double: ScanResult = { ...next, outcome: 'double_admission', serial: log.nextSerial(), offline: false, replayed: true };
        log.update((e) => e.uid === item.uid, { outcome: 'double_admission', checkedInAt: next.checkedInAt, checkedInStation: next.checkedInStation });
        setDoubles((list) => [double, ...list]);
        if (!double.checkedInStation && double.guest) void whoLetIn(double);
        shownSerial.current = double.serial;
        setResult(double);
        setSpoken({ text: announcement(double, d.current.types), serial: double.serial });
        beep('double_admission');
      }
      // A "queued" answer still on screen is out of date once its scan has been sent.
      setResult((shown) => (shown?.outcome === 'queued' && shown.uid === item.uid ? { ...next, serial: shown.serial, replayed: true } : shown));
    },
    [accepted, whoLetIn],
  );

  /** Takes an accepted scan back (the server's, or one still waiting in the queue). */
  const undo = useCallback(
    async (entry: LogEntry) => {
      const { api, eventId, log, queue, countStats, copy } = d.current;
      if (!undoable(entry)) return;
      let done = false;
      if (entry.checkinId !== undefined) {
        try {
          const answer = await api.request('DELETE', `/events/${eventId}/checkins/${entry.checkinId}`);
          if (answer.status !== 204) {
            setNotice(detailOf(answer.body) ?? i18next.t('door:undo.failed', { status: answer.status }));
            return;
          }
          done = true;
        } catch (err) {
          if (err instanceof OfflineError) setNotice(i18next.t('door:undo.needsServer'));
          return;
        }
      } else if (entry.uid) {
        done = await queue.withdraw(entry.uid);
        if (!done) setNotice(i18next.t('door:undo.sending'));
        // Never sent: the server will see neither the scan nor its undo.
        else d.current.forgetStats(entry.uid);
      }
      if (!done) return;
      setNotice(undefined);
      // The guest may be scanned again at once: that is a new entry, not the reader firing twice.
      recent.current.clear();
      const direction = entry.direction ?? 'in';
      log.update((e) => e.serial === entry.serial, { undone: true });
      if (entry.checkinId !== undefined) countStats({ delta: direction === 'in' ? -1 : 1, direction, typeId: typeIdOf(entry.guest), sessionId: entry.sessionName ? d.current.session?.id : undefined, station: d.current.station, scannedAt: entry.scannedAt });
      if (entry.guest && !entry.sessionName) void copy?.record(entry.guest.id, direction === 'in' ? 'out' : 'in', entry.scannedAt ?? apiNow(), d.current.station);
      setAttention((list) => list.filter((r) => r.serial !== entry.serial));
      show({ outcome: 'undone', code: entry.code, guest: entry.guest, direction, serial: log.nextSerial() });
    },
    [show],
  );

  const acknowledge = useCallback(() => setAttention((list) => list.slice(1)), []);
  const dismissDouble = useCallback((serial: number) => setDoubles((list) => list.filter((r) => r.serial !== serial)), []);

  return { result, checking, spoken, attention, acknowledge, doubles, dismissDouble, notice, setNotice, scan, replayed, undo };
}
