import { useTranslation } from 'react-i18next';
import { Dialog } from './dialog';

/** Where a sign-out stands while this device still holds scans the server has not had. */
export type Leaving = { phase: 'sending'; count: number } | { phase: 'unsent'; count: number };

/**
 * Signing out with scans still waiting: first they are handed over (the dialog says so and
 * signs out on its own once they are in); if the server cannot take them, staying signed in is
 * the first choice, and discarding them is said in so many words.
 */
export function SignOutDialog({ leaving, onStay, onDiscard }: { leaving: Leaving; onStay: () => void; onDiscard: () => void }) {
  const { t } = useTranslation('door');
  const { count } = leaving;
  return (
    <Dialog title={t('signOut.title')} onClose={onStay}>
      {leaving.phase === 'sending' ? (
        <>
          <p className="confirm-text" role="status" data-testid="sign-out-sending">
            {t('signOut.sending', { count })}
          </p>
          <div className="row">
            <button type="button" className="big" autoFocus onClick={onStay}>
              {t('signOut.stay')}
            </button>
          </div>
        </>
      ) : (
        <>
          <p className="confirm-text" data-testid="sign-out-unsent">
            {t('signOut.unsent', { count })}
          </p>
          <p className="muted">{t('signOut.why', { count })}</p>
          <p className="muted">{t('signOut.wipes')}</p>
          <div className="row">
            <button type="button" className="primary big" autoFocus onClick={onStay}>
              {t('signOut.stay')}
            </button>
            <button type="button" className="big danger" onClick={onDiscard}>
              {t('signOut.discard', { count })}
            </button>
          </div>
        </>
      )}
    </Dialog>
  );
}
