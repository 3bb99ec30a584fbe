import { useTranslation } from 'react-i18next';
import type { RegistrationType, ScanResult } from '../types';
import { DoorAnswers, guestName, typeName } from './result-panel';

/**
 * A guest the door must stop for (VIP, age check, access needs): stays over the answers until
 * someone acknowledges it (the button, or Enter on the empty scan field).
 */
export function AttentionCard({ result, waiting, types, onAcknowledge }: { result: ScanResult; waiting: number; types: RegistrationType[]; onAcknowledge: () => void }) {
  const { t } = useTranslation('door');
  const type = typeName(result.guest, types);
  return (
    <section className="attention" role="alertdialog" aria-labelledby="attention-head" data-testid="attention">
      <div className="result-icon" aria-hidden="true">
        ★
      </div>
      <div className="result-text">
        <p className="headline" id="attention-head">
          {t('attention.headline')}
        </p>
        <p className="guest-name">{guestName(result.guest)}</p>
        {type && (
          <p className="guest-meta">
            <span className="badge">{type}</span>
            {result.guest?.company && <span>{result.guest.company}</span>}
          </p>
        )}
        <p className="attention-note" data-testid="attention-note">
          {result.guest?.notes || t('attention.noNote')}
        </p>
        <DoorAnswers answers={result.guest?.door_answers} />
        {waiting > 1 && <p className="detail small">{t('attention.more', { count: waiting - 1 })}</p>}
      </div>
      <button type="button" className="primary big" onClick={onAcknowledge}>
        {t('attention.acknowledge')}
      </button>
    </section>
  );
}
