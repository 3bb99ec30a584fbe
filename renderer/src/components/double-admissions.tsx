import { useTranslation } from 'react-i18next';
import { eventTime } from '../event-clock';
import type { ScanResult } from '../types';
import { guestName } from './result-panel';

/**
 * Guests this station let in offline whom another station had let in first, as the server
 * said on replay: kept in view until someone has dealt with each.
 */
export function DoubleAdmissions({ doubles, timezone, onDismiss }: { doubles: ScanResult[]; timezone: string; onDismiss: (serial: number) => void }) {
  const { t } = useTranslation('door');
  if (!doubles.length) return null;
  return (
    <section className="doubles" role="alert" aria-label={t('double.title')} data-testid="double-admissions">
      <h2>{t('double.title')}</h2>
      <ul>
        {doubles.map((d) => (
          <li key={d.serial}>
            <span className="what">{guestName(d.guest) || d.code}</span>
            <span className="detail">
              {t('double.detail', {
                station: d.checkedInStation ?? t('double.anotherStation'),
                time: eventTime(d.checkedInAt, timezone) || '?',
              })}
            </span>
            <button type="button" onClick={() => onDismiss(d.serial)}>
              {t('double.dismiss')}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
