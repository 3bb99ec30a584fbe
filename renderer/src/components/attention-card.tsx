import { useTranslation } from 'react-i18next';
import type { ScanResult } from '../types';
import { guestName } from './result-panel';

/** Reminders shown in full: more would push the answer in front off its room. */
const SHOWN = 2;

/**
 * Guests the door stopped for (VIP, age check, access needs) who are no longer the answer in
 * front and have not been seen yet: one line each with their own note, above the answer, so
 * the guest in front is always shown whole. Each goes when someone presses its Seen button,
 * or, oldest first, on Enter in the empty scan field.
 */
export function AttentionWaiting({ waiting, onSeen }: { waiting: ScanResult[]; onSeen: (serial: number) => void }) {
  const { t } = useTranslation('door');
  if (!waiting.length) return null;
  const hidden = waiting.length - SHOWN;
  return (
    <section className="attention-waiting" aria-label={t('attention.waitingLabel')} data-testid="attention-waiting">
      <ul>
        {waiting.slice(0, SHOWN).map((r) => (
          <li key={r.serial}>
            <span className="attention-who">
              <span className="attention-star" aria-hidden="true">
                ★{' '}
              </span>
              {guestName(r.guest) || r.code}
            </span>
            <span className="attention-note">{r.guest?.notes || t('attention.noNote')}</span>
            <button type="button" onClick={() => onSeen(r.serial)} aria-label={t('attention.seenLabel', { name: guestName(r.guest) || r.code })}>
              {t('attention.seen')}
            </button>
          </li>
        ))}
      </ul>
      {hidden > 0 && <p className="attention-more">{t('attention.more', { count: hidden })}</p>}
    </section>
  );
}
