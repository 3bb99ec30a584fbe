import type { TFunction } from 'i18next';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { i18next } from '../i18n';
import { eventTime } from '../event-clock';
import { utcInstant } from '../i18n/format';
import type { DoorAnswer, GuestSummary, RegistrationType, ScanResult } from '../types';
import { useFit } from './use-fit';

type Tone = 'green' | 'amber' | 'red' | 'blue' | 'grey' | 'idle' | 'double';

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
  if (guest.registration_type_name) return guest.registration_type_name;
  const ref = guest.registration_type;
  if (ref && typeof ref === 'object') return ref.name ?? types.find((t) => t.id === ref.id)?.name ?? '';
  if (typeof ref === 'string') return ref;
  return types.find((t) => t.id === ref)?.name ?? '';
}

/** "12 min ago": how long since the first entry, so a ticket passed back out is spotted. */
function ago(t: TFunction, apiDatetime: string): string {
  const then = utcInstant(apiDatetime).getTime();
  if (Number.isNaN(then)) return '';
  const minutes = Math.max(0, Math.floor((Date.now() - then) / 60000));
  if (minutes < 1) return t('ago.justNow');
  if (minutes < 120) return t('ago.minutes', { count: minutes });
  return t('ago.hours', { count: Math.floor(minutes / 60) });
}

/** A code as the door reads it: a run-on scan is cut, with its length, instead of filling the panel. */
function shortCode(t: TFunction, code: string): string {
  const chars = [...code];
  return chars.length > 40 ? t('result.longCode', { start: chars.slice(0, 32).join(''), length: chars.length }) : code;
}

/** Long names step down in size so they still fit the panel on two or three lines. */
function nameSize(name: string): string {
  if (name.length > 32) return ' xlong';
  if (name.length > 20) return ' long';
  return '';
}

/** The first entry of a guest: when (on the event's clock, labelled), how long ago and at which station. */
function firstEntry(t: TFunction, result: ScanResult, timezone: string): string | undefined {
  if (!result.checkedInAt) return undefined;
  const time = eventTime(result.checkedInAt, timezone) || result.checkedInAt;
  const when = t('result.since', { time, ago: ago(t, result.checkedInAt) });
  return result.checkedInStation ? t('result.sinceAt', { when, station: result.checkedInStation }) : when;
}

export function viewOf(result: ScanResult, t: TFunction, timezone = 'UTC'): View {
  const session = result.sessionName;
  switch (result.outcome) {
    case 'checked_in':
      return {
        tone: 'green',
        icon: '✓',
        headline: session ? t('result.inSession', { session }) : t('result.checkedIn'),
        detail: result.offline ? t('result.admittedOffline') : undefined,
      };
    case 'checked_out':
      return { tone: 'blue', icon: '↩', headline: t('result.checkedOut'), detail: result.offline ? t('result.decidedOffline') : undefined };
    case 'already_checked_in':
      return {
        tone: 'amber',
        icon: '!',
        headline: session ? t('result.alreadyInSession', { session }) : t('result.alreadyIn'),
        detail: [firstEntry(t, result, timezone), result.offline ? t('result.decidedOffline') : ''].filter(Boolean).join(' · ') || undefined,
      };
    case 'not_checked_in':
      return { tone: 'amber', icon: '!', headline: t('result.notIn'), detail: t('result.nothingToCheckOut') };
    case 'not_found':
      return { tone: 'red', icon: '✕', headline: t('result.notFound'), detail: t('result.code', { code: shortCode(t, result.code) }) + (result.offline ? ` · ${t('result.decidedOffline')}` : '') };
    case 'inactive':
      return { tone: 'red', icon: '✕', headline: t('result.inactive'), detail: t('result.inactiveDetail') };
    case 'not_registered':
      return { tone: 'red', icon: '✕', headline: t('result.notRegistered'), detail: session ? t('result.notOnListFor', { session }) : t('result.notOnList') };
    case 'session_full':
      return { tone: 'red', icon: '✕', headline: t('result.sessionFull'), detail: session ? t('result.noRoomIn', { session }) : undefined };
    case 'queued':
      return { tone: 'grey', icon: '⋯', headline: t('result.queued'), detail: t('result.queuedDetail', { code: result.code }) };
    case 'checking':
      return { tone: 'grey', icon: '…', headline: t('result.checking') };
    case 'undone':
      return {
        tone: 'grey',
        icon: '↶',
        headline: t('result.undone'),
        detail: result.direction === 'out' ? t('result.undoneOut', { name: guestName(result.guest) || result.code }) : t('result.undoneIn', { name: guestName(result.guest) || result.code }),
      };
    case 'double_admission':
      return {
        tone: 'double',
        icon: '‼',
        headline: t('result.double'),
        detail: t('result.doubleDetail', {
          station: result.checkedInStation ?? t('double.anotherStation'),
          time: eventTime(result.checkedInAt, timezone) || '?',
        }),
      };
    default:
      return { tone: 'red', icon: '✕', headline: t('result.refused'), detail: result.message };
  }
}

/** What a screen reader says: the same facts as the screen, in one sentence. */
export function announcement(result: ScanResult, types: RegistrationType[], timezone: string, attention = false): string {
  const t = i18next.getFixedT(null, 'door');
  const view = viewOf(result, t, timezone);
  const who = [guestName(result.guest), typeName(result.guest, types), result.guest?.company].filter(Boolean).join(', ');
  const answers = result.guest?.door_answers?.map((a) => `${a.question} ${a.answer}`);
  const note = result.guest?.notes || (attention ? t('attention.noNote') : '');
  return [attention ? t('attention.headline') : '', view.headline, who, view.detail, note, ...(answers ?? [])].filter(Boolean).join('. ');
}

/** The guest's answers to the questions shown at the door, question beside answer. */
export function DoorAnswers({ answers }: { answers?: DoorAnswer[] }) {
  if (!answers?.length) return null;
  return (
    <dl className="door-answers" data-testid="door-answers">
      {answers.map((a) => (
        <div key={a.question_id}>
          <dt>{a.question}</dt>
          <dd>{a.answer}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The answer to the last scan, filling the stage; the next scan replaces it. */
export function ResultPanel({
  result,
  checking,
  types,
  timezone,
  attention,
  fitKey = '',
  onDismiss,
  onPrintBadge,
}: {
  result?: ScanResult;
  checking?: Checking;
  types: RegistrationType[];
  timezone: string;
  /** The guest in front needs attention: shown as such, with their note, until seen. */
  attention?: { onSeen: () => void };
  /** What else changes the room the answer has (attention reminders above it, the camera). */
  fitKey?: string;
  onDismiss?: () => void;
  /** Offered on every green answer: prints the guest's badge. */
  onPrintBadge?: (guest: GuestSummary) => void;
}) {
  const { t } = useTranslation('door');
  const { t: tb } = useTranslation('badges');
  const panel = useRef<HTMLElement>(null);
  const fit = useFit(panel, `${result?.serial ?? 'idle'}:${attention ? 'a' : ''}:${fitKey}`);
  // Covers the previous answer while the next scan is on its way (shown only if the server
  // takes longer than a blink, so a quick answer does not flicker).
  const cover = checking && (
    <div className="checking" data-testid="checking" aria-hidden="true">
      <p className="headline">{t('result.checkingCover')}</p>
      <p className="detail">{checking.code}</p>
    </div>
  );
  if (!result) {
    return (
      <section ref={panel} className="result tone-idle" data-outcome="idle" data-fit={fit}>
        {cover}
        <div className="result-icon" aria-hidden="true">
          ⌁
        </div>
        <div className="result-text">
          <p className="headline">{t('result.ready')}</p>
          <p className="detail">{t('result.readyDetail')}</p>
        </div>
      </section>
    );
  }
  const view = viewOf(result, t, timezone);
  const name = guestName(result.guest);
  const type = typeName(result.guest, types);
  const notes = result.guest?.notes || (attention ? t('attention.noNote') : '');
  const tone = attention ? 'attention' : view.tone;
  return (
    <section
      ref={panel}
      key={result.serial}
      className={`result tone-${tone} flash`}
      data-outcome={result.outcome}
      data-attention={attention ? 'true' : 'false'}
      data-offline={result.offline ? 'true' : undefined}
      data-fit={fit}
      onClick={onDismiss}
    >
      {cover}
      <div className="result-icon" aria-hidden="true">
        {attention ? '★' : view.icon}
      </div>
      <div className="result-text">
        <p className="headline">{attention ? t('attention.headline') : view.headline}</p>
        {attention && <p className="detail">{view.icon} {view.headline}</p>}
        {name && <p className={`guest-name${nameSize(name)}`}>{name}</p>}
        {(type || result.guest?.company) && (
          <p className="guest-meta">
            {type && <span className="badge">{type}</span>}
            {result.guest?.company && <span>{result.guest.company}</span>}
          </p>
        )}
        {view.detail && <p className="detail">{view.detail}</p>}
        {notes && (
          <p className="detail note" data-testid="note">
            {notes}
          </p>
        )}
        <DoorAnswers answers={result.guest?.door_answers} />
        {result.replayed && result.outcome !== 'double_admission' && <p className="detail small">{t('result.fromQueue')}</p>}
        {(attention || (onPrintBadge && view.tone === 'green' && result.guest?.id !== undefined)) && (
          <div className="result-buttons">
            {attention && (
              <button
                type="button"
                className="primary seen"
                onClick={(e) => {
                  e.stopPropagation();
                  attention.onSeen();
                }}
              >
                {t('attention.acknowledge')}
              </button>
            )}
            {onPrintBadge && view.tone === 'green' && result.guest?.id !== undefined && (
              <button
                type="button"
                className="print-badge"
                aria-label={tb('door.printLabel', { name })}
                onClick={(e) => {
                  e.stopPropagation();
                  onPrintBadge(result.guest!);
                }}
              >
                {tb('door.print')}
              </button>
            )}
          </div>
        )}
      </div>
    </section>
  );
}
