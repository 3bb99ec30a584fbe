import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { apiNow, detailOf, listAll, newUid, OfflineError, SessionExpiredError, type Api } from '../api';
import { resultOf, sendScan, type ScanSend } from '../checkin';
import { desktop, type ShareInfo } from '../desktop';
import { dropQueuedScan, queuedScans, queueScan } from '../scan-queue';
import { beep } from '../sounds';
import { initialStation, saveStation } from '../station';
import type { EventStats } from '../stats';
import type { CodeKind, Direction, EventSummary, GuestSummary, RegistrationType, ScanResult, SessionSummary } from '../types';
import { CameraPanel, useHasCamera } from './camera-panel';
import { Dialog } from './dialog';
import { EventFilePanel } from './event-file-panel';
import { announcement, guestName, RecentScans, ResultPanel, type Checking } from './result-panel';
import { SearchPanel } from './search-panel';
import { SessionPanel } from './session-panel';
import { SharePanel } from './share-panel';
import { StatsPanel } from './stats-panel';
import { WalkInPanel } from './walk-in-panel';

type Panel = 'none' | 'search' | 'walk-in' | 'session' | 'station' | 'export' | 'import' | 'share';

const STATS_EVERY_MS = 4000;
// The server may answer the stats from a copy up to two seconds old, so a scan's effect on
// the counters is fetched again once that copy has expired.
const STATS_SETTLE_MS = 2300;
const REPLAY_LOG = 8;
const RECENT_LOG = 8;
const NFC_FALLBACK_KEY = 'doorlist.nfcFallback';

interface Accepted {
  checkinId: number;
  guest?: GuestSummary;
}

function isTextField(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

const hasWebNfc = typeof window !== 'undefined' && 'NDEFReader' in window;

/**
 * Door mode: the scan field keeps the focus (keyboard-wedge barcode and NFC readers type the
 * code and Enter), the answer fills the stage, counters refresh on their own, and scans the
 * server cannot take wait in IndexedDB and are replayed with their uid once it answers.
 */
export function DoorScreen({ api, event, onChangeEvent, onSignOut }: { api: Api; event: EventSummary; onChangeEvent: () => void; onSignOut: () => void }) {
  const [station, setStation] = useState(() => localStorage.getItem('doorlist.station') ?? '');
  const [types, setTypes] = useState<RegistrationType[]>([]);
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [session, setSession] = useState<SessionSummary>();
  const [direction, setDirection] = useState<Direction>('in');
  const [nfcFallback, setNfcFallback] = useState(() => localStorage.getItem(NFC_FALLBACK_KEY) !== 'off');
  const [result, setResult] = useState<ScanResult>();
  // The scan on its way to the server: the previous answer is covered at once, so it is never
  // read as the answer for the guest now at the door.
  const [checking, setChecking] = useState<Checking>();
  // Every scan's own answer, newest first, so one that a faster scan replaced is still seen.
  const [recent, setRecent] = useState<ScanResult[]>([]);
  const [spoken, setSpoken] = useState({ text: '', serial: 0 });
  const [accepted, setAccepted] = useState<Accepted>();
  const [panel, setPanel] = useState<Panel>('none');
  const [stats, setStats] = useState<EventStats>();
  const [online, setOnline] = useState(true);
  const [pending, setPending] = useState(0);
  const [replayed, setReplayed] = useState<ScanResult[]>([]);
  const [notice, setNotice] = useState<string>();
  const [nfcOn, setNfcOn] = useState(false);
  const [shareInfo, setShareInfo] = useState<ShareInfo>();
  const hasCamera = useHasCamera();
  const [cameraOn, setCameraOn] = useState(false);
  // On touch screens the field keeps the focus without calling up the on-screen keyboard
  // (which would cover the answer) until someone taps the field to type.
  const [touchTyping, setTouchTyping] = useState(false);
  const coarse = typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;

  const scanInput = useRef<HTMLInputElement>(null);
  const serial = useRef(0);
  const shownSerial = useRef(0);
  const flushing = useRef(false);
  const panelRef = useRef(panel);
  panelRef.current = panel;
  const nfcAbort = useRef<AbortController | undefined>(undefined);
  const changeEvent = useRef(onChangeEvent);
  changeEvent.current = onChangeEvent;

  const focusScan = useCallback(() => {
    requestAnimationFrame(() => {
      if (panelRef.current === 'none') scanInput.current?.focus();
    });
  }, []);

  const closePanel = useCallback(() => {
    setPanel('none');
    panelRef.current = 'none';
    focusScan();
  }, [focusScan]);

  useEffect(() => {
    void initialStation().then(setStation);
  }, []);

  useEffect(() => {
    // An event deleted (or taken out of this key's scope) since the last visit: pick again.
    api
      .request('GET', `/events/${event.id}`)
      .then((answer) => answer.status === 404 && changeEvent.current())
      .catch(() => undefined);
    listAll<RegistrationType>(api, `/events/${event.id}/registration_types`)
      .then(setTypes)
      .catch(() => undefined);
    listAll<SessionSummary>(api, `/events/${event.id}/sessions`)
      .then((all) => {
        setSessions(all);
        const saved = Number(localStorage.getItem(`doorlist.session.${event.id}`));
        setSession(all.find((s) => s.id === saved));
      })
      .catch(() => undefined);
  }, [api, event.id]);

  /** Shows an answer unless a later scan's answer is already on screen. */
  const show = useCallback(
    (next: ScanResult) => {
      setRecent((list) => (list.some((r) => r.serial === next.serial) ? list.map((r) => (r.serial === next.serial ? next : r)) : [next, ...list].slice(0, RECENT_LOG)));
      setChecking((c) => (c && c.serial <= next.serial ? undefined : c));
      if (next.serial < shownSerial.current) return;
      shownSerial.current = next.serial;
      setResult(next);
      setSpoken({ text: announcement(next, types), serial: next.serial });
      beep(next.outcome);
    },
    [types],
  );

  const settleTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(settleTimer.current), []);

  const refreshStats = useCallback(async (): Promise<boolean> => {
    try {
      const answer = await api.request<EventStats>('GET', `/events/${event.id}/stats`);
      setOnline(true);
      if (answer.status === 200) setStats(answer.body);
      return true;
    } catch (err) {
      if (err instanceof OfflineError) setOnline(false);
      return false;
    }
  }, [api, event.id]);

  /** Counters now, and again once the server's copy of the stats is surely fresh. */
  const statsAfterScan = useCallback(() => {
    void refreshStats();
    clearTimeout(settleTimer.current);
    settleTimer.current = setTimeout(() => void refreshStats(), STATS_SETTLE_MS);
  }, [refreshStats]);

  const countPending = useCallback(async () => {
    const waiting = await queuedScans().catch(() => []);
    setPending(waiting.length);
    return waiting.length;
  }, []);

  /** Sends the waiting scans oldest first, each with its own uid, and shows what became of them. */
  const flush = useCallback(async () => {
    if (flushing.current) return;
    flushing.current = true;
    try {
      for (const item of await queuedScans()) {
        let answer;
        try {
          answer = await sendScan(api, item.eventId, item);
        } catch (err) {
          if (err instanceof OfflineError) setOnline(false);
          break;
        }
        await dropQueuedScan(item.uid);
        setOnline(true);
        serial.current += 1;
        const done = { ...resultOf(answer, item, serial.current), replayed: true };
        setReplayed((list) => [done, ...list].slice(0, REPLAY_LOG));
        // The "queued" entry among the last scans becomes the answer it finally got.
        setRecent((list) => list.map((r) => (r.uid === item.uid && r.outcome === 'queued' ? { ...done, serial: r.serial } : r)));
        await countPending();
      }
    } finally {
      flushing.current = false;
      // A "queued" answer still on screen is out of date once its scan has been sent.
      if ((await countPending()) === 0) setResult((shown) => (shown?.outcome === 'queued' ? undefined : shown));
      statsAfterScan();
    }
  }, [api, countPending, statsAfterScan]);

  useEffect(() => {
    void countPending().then((n) => {
      if (n > 0) void flush();
    });
    void refreshStats();
    const timer = setInterval(async () => {
      if ((await refreshStats()) && (await countPending()) > 0) void flush();
    }, STATS_EVERY_MS);
    const onOnline = () => void flush();
    window.addEventListener('online', onOnline);
    return () => {
      clearInterval(timer);
      window.removeEventListener('online', onOnline);
    };
  }, [countPending, flush, refreshStats]);

  /** One scan: typed, read by a reader or camera, or a guest picked from a list. */
  const scan = useCallback(
    async (kind: CodeKind, code: string, options: { direction?: Direction; label?: string } = {}) => {
      serial.current += 1;
      const mine = serial.current;
      const shownAs = options.label ?? code;
      setChecking({ serial: mine, code: shownAs });
      setRecent((list) => [{ outcome: 'checking' as const, code: shownAs, serial: mine }, ...list].slice(0, RECENT_LOG));
      const send: ScanSend = {
        uid: newUid(),
        kind,
        code,
        nfcFallback: kind === 'barcode' && nfcFallback,
        direction: options.direction ?? direction,
        sessionId: session?.id,
        sessionName: session?.name,
        scannedAt: apiNow(),
        station: station || 'Door',
        label: options.label,
      };
      try {
        const answer = await sendScan(api, event.id, send);
        setOnline(true);
        const next = resultOf(answer, send, mine);
        show(next);
        if (answer.status === 201 && next.checkinId) setAccepted({ checkinId: next.checkinId, guest: next.guest });
        statsAfterScan();
        if (pending > 0) void flush();
      } catch (err) {
        if (err instanceof SessionExpiredError) {
          // The screen goes back to sign-in; the guest was scanned all the same, so the scan
          // waits in the queue and is sent (with its uid and time) once someone signs in again.
          setChecking(undefined);
          await queueScan({ ...send, eventId: event.id, queuedAt: Date.now() }).catch(() => undefined);
          return;
        }
        if (err instanceof OfflineError) {
          try {
            await queueScan({ ...send, eventId: event.id, queuedAt: Date.now() });
            setOnline(false);
            await countPending();
            show({ outcome: 'queued', code: options.label ?? code, sessionName: send.sessionName, serial: mine, uid: send.uid });
          } catch {
            show({ outcome: 'refused', code, message: 'Offline, and this browser cannot store the scan. Try again.', serial: mine });
          }
          return;
        }
        show({ outcome: 'refused', code, message: (err as Error).message, serial: mine });
      }
    },
    [api, event.id, direction, session, station, nfcFallback, pending, show, statsAfterScan, flush, countPending],
  );

  const submitScan = (e: FormEvent) => {
    e.preventDefault();
    const input = scanInput.current;
    const code = input?.value.trim() ?? '';
    if (input) input.value = '';
    if (code) void scan('barcode', code);
    setTouchTyping(false);
    focusScan();
  };

  const undo = useCallback(async () => {
    focusScan();
    if (!accepted) {
      setNotice('Nothing to undo.');
      return;
    }
    try {
      const answer = await api.request('DELETE', `/events/${event.id}/checkins/${accepted.checkinId}`);
      if (answer.status === 204) {
        serial.current += 1;
        show({ outcome: 'undone', code: '', guest: accepted.guest, serial: serial.current });
        setAccepted(undefined);
        setNotice(undefined);
        statsAfterScan();
      } else {
        setNotice(detailOf(answer.body) ?? `Undo failed (${answer.status}).`);
      }
    } catch (err) {
      if (err instanceof OfflineError) setNotice('Undo needs the server; try again when it is back.');
    }
  }, [accepted, api, event.id, focusScan, statsAfterScan, show]);

  const pickSession = (picked?: SessionSummary) => {
    setSession(picked);
    if (picked) localStorage.setItem(`doorlist.session.${event.id}`, String(picked.id));
    else localStorage.removeItem(`doorlist.session.${event.id}`);
    closePanel();
  };

  const toggleNfc = async () => {
    focusScan();
    if (nfcOn) {
      nfcAbort.current?.abort();
      setNfcOn(false);
      return;
    }
    try {
      const Reader = (window as unknown as { NDEFReader: new () => any }).NDEFReader;
      const reader = new Reader();
      const abort = new AbortController();
      await reader.scan({ signal: abort.signal });
      reader.onreading = (e: { serialNumber: string }) => void scan('nfc_tag', e.serialNumber);
      nfcAbort.current = abort;
      setNfcOn(true);
    } catch (err) {
      setNotice(`NFC cannot be used: ${(err as Error).message}`);
    }
  };

  useEffect(() => () => nfcAbort.current?.abort(), []);

  const open = (next: Panel) => {
    setNotice(undefined);
    panelRef.current = next;
    setPanel(next);
  };

  // Shortcuts, and any typing outside a text field goes to the scan field (a reader fires
  // its keystrokes wherever the focus happens to be).
  const keyHandler = useRef<(e: KeyboardEvent) => void>(() => {});
  keyHandler.current = (e: KeyboardEvent) => {
    if (panelRef.current !== 'none') return;
    const key = e.key;
    if (key === 'F2') return e.preventDefault(), open('search');
    if (key === 'F4') return e.preventDefault(), open('walk-in');
    if (key === 'F6') return e.preventDefault(), setDirection((d) => (d === 'in' ? 'out' : 'in'));
    if (key === 'F7') return e.preventDefault(), open('session');
    if (key === 'F8' && hasCamera) return e.preventDefault(), setCameraOn((on) => !on);
    if ((e.ctrlKey || e.metaKey) && key.toLowerCase() === 'z' && (!isTextField(e.target) || e.target === scanInput.current)) {
      e.preventDefault();
      void undo();
      return;
    }
    if (key === 'Escape') {
      if (scanInput.current) scanInput.current.value = '';
      setNotice(undefined);
      scanInput.current?.focus();
      return;
    }
    if (key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey && !isTextField(e.target)) scanInput.current?.focus();
  };
  useEffect(() => {
    const listener = (e: KeyboardEvent) => keyHandler.current(e);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);

  useEffect(
    () =>
      desktop?.onMenu((action, payload) => {
        if (action === 'export-event') open('export');
        else if (action === 'import-event') open('import');
        else if (action === 'share-info') {
          setShareInfo(payload as ShareInfo);
          open('share');
        }
      }),
    [],
  );

  useEffect(() => {
    if (panel === 'none') focusScan();
  }, [panel, focusScan]);

  const checkFromList = (guest: GuestSummary, dir: Direction) => {
    closePanel();
    void scan('guest_id', String(guest.id), { direction: dir, label: guestName(guest) });
  };

  return (
    <div className={direction === 'out' ? 'door mode-out' : 'door'}>
      <header className="topbar">
        <div className="event-title">
          <h1>{event.name}</h1>
          {session && (
            <button type="button" className="chip session-chip" onClick={() => open('session')}>
              Session: {session.name}
            </button>
          )}
          <span className="mini-count" aria-hidden="true">
            {stats ? `${stats.checked_in} / ${stats.total} in` : ''}
          </span>
        </div>
        <div className="status-area">
          <span className={online ? 'conn ok' : 'conn off'} data-testid="connection">
            {online ? 'Online' : 'Offline'}
          </span>
          {pending > 0 && (
            <span className="pending" data-testid="pending" aria-label={`${pending} scans waiting to be sent`}>
              {pending} queued
            </span>
          )}
          <button type="button" className="chip" onClick={() => open('station')} title="Station name sent with every scan">
            {station || 'Station'}
          </button>
          <button type="button" onClick={onChangeEvent}>
            Events
          </button>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>

      {direction === 'out' && (
        <p className="mode-banner" role="status">
          Check-out mode: scans check guests out (F6 to go back)
        </p>
      )}

      <main className="stage">
        <form className="scanbar" onSubmit={submitScan} role="search" aria-label="Scan">
          <label htmlFor="scan-field">{direction === 'out' ? 'Scan out' : 'Scan'}</label>
          <input
            id="scan-field"
            ref={scanInput}
            name="scan"
            autoFocus
            autoComplete="off"
            autoCapitalize="off"
            autoCorrect="off"
            spellCheck={false}
            enterKeyHint="go"
            inputMode={coarse && !touchTyping ? 'none' : 'text'}
            onPointerDown={() => setTouchTyping(true)}
            placeholder="Scan or type a code"
            onBlur={(e) => {
              if (!e.relatedTarget) focusScan();
            }}
          />
          <button type="submit" className="primary">
            Enter
          </button>
        </form>

        <ResultPanel result={result} checking={checking} types={types} onDismiss={focusScan} />
        <RecentScans scans={recent} />
        {/* A new node per scan, so the same words twice are announced twice. */}
        <div className="sr-only" aria-live="assertive" aria-atomic="true" data-testid="announcer">
          <p key={spoken.serial}>{spoken.text}</p>
        </div>
        {cameraOn && (
          <CameraPanel
            onCode={(code) => void scan('barcode', code)}
            onClose={() => {
              setCameraOn(false);
              focusScan();
            }}
          />
        )}
        {notice && (
          <p className="notice" role="status" data-testid="notice">
            {notice}
          </p>
        )}

        <nav className="actions" aria-label="Door actions">
          <button type="button" onClick={() => open('search')}>
            <kbd>F2</kbd> Search
          </button>
          <button type="button" onClick={() => open('walk-in')}>
            <kbd>F4</kbd> Walk-in
          </button>
          <button type="button" onClick={() => void undo()} disabled={!accepted}>
            <kbd>Ctrl+Z</kbd> Undo
          </button>
          <button
            type="button"
            aria-pressed={direction === 'out'}
            onClick={() => {
              setDirection((d) => (d === 'in' ? 'out' : 'in'));
              focusScan();
            }}
          >
            <kbd>F6</kbd> Check&#8209;out<span className="wide-only"> mode</span>
          </button>
          <button type="button" onClick={() => open('session')}>
            <kbd>F7</kbd> Session
          </button>
          {hasCamera && (
            <button
              type="button"
              aria-pressed={cameraOn}
              onClick={() => {
                setCameraOn((on) => !on);
                focusScan();
              }}
            >
              <kbd>F8</kbd> Camera
            </button>
          )}
          {hasWebNfc && (
            <button type="button" aria-pressed={nfcOn} onClick={() => void toggleNfc()}>
              NFC {nfcOn ? 'on' : 'off'}
            </button>
          )}
          <button type="button" onClick={() => open('export')}>
            Export
          </button>
        </nav>

      </main>

      <StatsPanel stats={stats} session={session}>
        {replayed.length > 0 && (
          <section className="replayed" aria-label="Sent from the offline queue">
            <header className="row">
              <h2>Sent from the queue</h2>
              <button
                type="button"
                onClick={() => {
                  setReplayed([]);
                  focusScan();
                }}
              >
                Clear
              </button>
            </header>
            <ul>
              {replayed.map((r) => (
                <li key={r.serial} className={`replay-${r.outcome}`} data-outcome={r.outcome}>
                  <span className="what">{guestName(r.guest) || r.code}</span>
                  <span className="outcome">{r.outcome.replace(/_/g, ' ')}</span>
                </li>
              ))}
            </ul>
          </section>
        )}
      </StatsPanel>

      {panel === 'search' && <SearchPanel api={api} eventId={event.id} types={types} onCheck={checkFromList} onClose={closePanel} />}
      {panel === 'walk-in' && (
        <WalkInPanel
          api={api}
          eventId={event.id}
          types={types}
          onClose={closePanel}
          onAdded={(guestId) => {
            closePanel();
            void scan('guest_id', String(guestId), { direction: 'in' });
          }}
        />
      )}
      {panel === 'session' && <SessionPanel sessions={sessions} current={session} onPick={pickSession} onClose={closePanel} />}
      {panel === 'station' && (
        <StationPanel
          station={station}
          nfcFallback={nfcFallback}
          onSave={(name, fallback) => {
            setStation(name);
            saveStation(name);
            setNfcFallback(fallback);
            localStorage.setItem(NFC_FALLBACK_KEY, fallback ? 'on' : 'off');
            closePanel();
          }}
          onClose={closePanel}
        />
      )}
      {panel === 'export' && <EventFilePanel api={api} mode="export" eventId={event.id} eventName={event.name} onClose={closePanel} />}
      {panel === 'import' && <EventFilePanel api={api} mode="import" onClose={closePanel} />}
      {panel === 'share' && shareInfo && <SharePanel info={shareInfo} onClose={closePanel} />}
    </div>
  );
}

/** The station name every scan carries, and whether an unknown barcode is tried as an NFC tag. */
function StationPanel({ station, nfcFallback, onSave, onClose }: { station: string; nfcFallback: boolean; onSave: (name: string, nfcFallback: boolean) => void; onClose: () => void }) {
  const [name, setName] = useState(station);
  const [fallback, setFallback] = useState(nfcFallback);
  return (
    <Dialog title="This station" onClose={onClose}>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) onSave(name.trim().slice(0, 128), fallback);
        }}
      >
        <label>
          Station name (sent with every scan)
          <input name="station" value={name} autoFocus maxLength={128} onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="check">
          <input type="checkbox" checked={fallback} onChange={(e) => setFallback(e.target.checked)} />
          Try an unknown barcode as an NFC tag (for NFC readers that type like a keyboard)
        </label>
        <button type="submit" className="primary big">
          Save
        </button>
      </form>
    </Dialog>
  );
}
