import { localTime } from '../api';
import type { GuestSummary, RegistrationType, ScanResult } from '../types';

type Tone = 'green' | 'amber' | 'red' | 'blue' | 'grey' | 'idle';

/** A scan sent and not yet answered. */
export interface Checking {
  serial: number;
  code: string;
}

interface View {
  tone: Tone;
  icon: string;
  headline: string;
  detail?: string;
}

export function guestName(guest?: GuestSummary): string {
  return guest ? `${guest.first_name ?? ''} ${guest.last_name ?? ''}`.trim() : '';
}

/** The registration type's name: the scan answer carries it; the guest list only has its id. */
export function typeName(guest: GuestSummary | undefined, types: RegistrationType[]): string {
  if (!guest) return '';
  const named = (guest as { registration_type_name?: string }).registration_type_name;
  if (named) return named;
  const ref = guest.registration_type;
  if (ref && typeof ref === 'object') return ref.name ?? types.find((t) => t.id === ref.id)?.name ?? '';
  if (typeof ref === 'string') return ref;
  return types.find((t) => t.id === ref)?.name ?? '';
}

/** " (12 min ago)": how long since the first entry, so a ticket passed back out is spotted. */
function ago(apiDatetime: string): string {
  const then = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(apiDatetime) ? apiDatetime : `${apiDatetime}Z`);
  if (Number.isNaN(then)) return '';
  const minutes = Math.max(0, Math.floor((Date.now() - then) / 60000));
  if (minutes < 1) return ' (just now)';
  if (minutes < 120) return ` (${minutes} min ago)`;
  return ` (${Math.floor(minutes / 60)} h ago)`;
}

/** A code as the door reads it: a run-on scan is cut, with its length, instead of filling the panel. */
function shortCode(code: string): string {
  const chars = [...code];
  return chars.length > 40 ? `${chars.slice(0, 32).join('')}… (${chars.length} characters)` : code;
}

/** Long names step down in size so they still fit the panel on two or three lines. */
function nameSize(name: string): string {
  if (name.length > 32) return ' xlong';
  if (name.length > 20) return ' long';
  return '';
}

function viewOf(result: ScanResult): View {
  const session = result.sessionName ? ` for ${result.sessionName}` : '';
  switch (result.outcome) {
    case 'checked_in':
      return { tone: 'green', icon: '✓', headline: result.sessionName ? `In: ${result.sessionName}` : 'Checked in' };
    case 'checked_out':
      return { tone: 'blue', icon: '↩', headline: 'Checked out' };
    case 'already_checked_in':
      return { tone: 'amber', icon: '!', headline: 'Already checked in', detail: result.checkedInAt ? `since ${localTime(result.checkedInAt)}${ago(result.checkedInAt)}` : undefined };
    case 'not_checked_in':
      return { tone: 'amber', icon: '!', headline: 'Not checked in', detail: 'Nothing to check out' };
    case 'not_found':
      return { tone: 'red', icon: '✕', headline: 'Not found', detail: `Code ${shortCode(result.code)}` };
    case 'inactive':
      return { tone: 'red', icon: '✕', headline: 'Inactive', detail: 'This registration is switched off' };
    case 'not_registered':
      return { tone: 'red', icon: '✕', headline: 'Not registered', detail: `Not on the list${session}` };
    case 'session_full':
      return { tone: 'red', icon: '✕', headline: 'Session full', detail: result.sessionName ? `No room left in ${result.sessionName}` : undefined };
    case 'queued':
      return { tone: 'grey', icon: '⋯', headline: 'Queued', detail: `Offline: ${result.code} is stored and will be sent when the server is back` };
    case 'checking':
      return { tone: 'grey', icon: '…', headline: 'Checking' };
    case 'undone':
      return { tone: 'grey', icon: '↶', headline: 'Undone', detail: 'The last scan was taken back' };
    default:
      return { tone: 'red', icon: '✕', headline: 'Scan refused', detail: result.message };
  }
}

/** What a screen reader says: the same facts as the screen, in one sentence. */
export function announcement(result: ScanResult, types: RegistrationType[]): string {
  const view = viewOf(result);
  const who = [guestName(result.guest), typeName(result.guest, types), result.guest?.company].filter(Boolean).join(', ');
  return [view.headline, who, view.detail].filter(Boolean).join('. ');
}

/** The answer to the last scan, filling the stage; the next scan replaces it. */
export function ResultPanel({ result, checking, types, onDismiss }: { result?: ScanResult; checking?: Checking; types: RegistrationType[]; onDismiss?: () => void }) {
  // Covers the previous answer while the next scan is on its way (shown only if the server
  // takes longer than a blink, so a quick answer does not flicker).
  const cover = checking && (
    <div className="checking" data-testid="checking" aria-hidden="true">
      <p className="headline">Checking…</p>
      <p className="detail">{checking.code}</p>
    </div>
  );
  if (!result) {
    return (
      <section className="result tone-idle" data-outcome="idle">
        {cover}
        <div className="result-icon" aria-hidden="true">
          ⌁
        </div>
        <div className="result-text">
          <p className="headline">Ready to scan</p>
          <p className="detail">Scan a ticket or NFC tag, or type the code and press Enter</p>
        </div>
      </section>
    );
  }
  const view = viewOf(result);
  const name = guestName(result.guest);
  const type = typeName(result.guest, types);
  return (
    <section key={result.serial} className={`result tone-${view.tone} flash`} data-outcome={result.outcome} onClick={onDismiss}>
      {cover}
      <div className="result-icon" aria-hidden="true">
        {view.icon}
      </div>
      <div className="result-text">
        <p className="headline">{view.headline}</p>
        {name && <p className={`guest-name${nameSize(name)}`}>{name}</p>}
        {(type || result.guest?.company) && (
          <p className="guest-meta">
            {type && <span className="badge">{type}</span>}
            {result.guest?.company && <span>{result.guest.company}</span>}
          </p>
        )}
        {view.detail && <p className="detail">{view.detail}</p>}
        {result.replayed && <p className="detail small">Sent from the offline queue</p>}
      </div>
    </section>
  );
}

/** The last scans, newest first, each with its own answer: one a faster scan replaced is still seen. */
export function RecentScans({ scans }: { scans: ScanResult[] }) {
  return (
    <ol className="recent" aria-label="Last scans" data-testid="recent">
      {scans.map((scan) => {
        const view = viewOf(scan);
        return (
          <li key={scan.serial} className={`tone-${view.tone}`} data-outcome={scan.outcome} title={view.headline}>
            <span className="recent-icon" aria-hidden="true">
              {view.icon}
            </span>
            <span className="recent-who">{guestName(scan.guest) || scan.code}</span>
            <span className="sr-only">{view.headline}</span>
          </li>
        );
      })}
    </ol>
  );
}
