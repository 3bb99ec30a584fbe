import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import QRCode from 'qrcode';
import { OfflineError, type Api } from '../api';
import { Fingerprint } from './fingerprint';
import type { LanStateRecord as LanState } from '../console/wire';
import { Dialog } from './dialog';

const POLL_MS = 5000;

/** GET /lan, read again while shown: sharing may start from the desktop menu, an address may change. */
function useLanState(api: Api): LanState | 'unreachable' | undefined {
  const [state, setState] = useState<LanState | 'unreachable'>();
  useEffect(() => {
    let live = true;
    const read = () =>
      api.request<LanState>('GET', '/lan').then(
        (answer) => live && answer.status === 200 && setState(answer.body),
        (err: unknown) => live && err instanceof OfflineError && setState('unreachable'),
      );
    void read();
    const timer = setInterval(read, POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [api]);
  return state;
}

/** A QR code of `text`, as an image the page can show (made here: the laptop may have no internet). */
function QrCode({ text, label }: { text: string; label: string }) {
  const [src, setSrc] = useState<string>();
  useEffect(() => {
    let live = true;
    QRCode.toDataURL(text, { margin: 1, width: 220 }).then(
      (url) => live && setSrc(url),
      () => live && setSrc(undefined),
    );
    return () => {
      live = false;
    };
  }, [text]);
  return src ? <img src={src} alt={label} width={220} height={220} /> : null;
}

/**
 * Sharing on the LAN, for the console and the desktop menu alike: the HTTPS address to open on
 * phones, the laptop's authority to trust once (QR code, fingerprint, steps for Android and
 * iOS), and the certificate served now, as a browser's warning would show it.
 */
export function ShareDetails({ api }: { api: Api }) {
  const { t } = useTranslation('lan');
  const state = useLanState(api);
  if (state === undefined) return null;
  if (state === 'unreachable') return <p className="error">{t('unreachable')}</p>;
  if (!state.sharing) return <p data-testid="share-off">{t('notSharing')}</p>;
  const address = state.https_urls[0];
  const authority = state.authority_urls[0];
  return (
    <div className="share" data-testid="share-details">
      {address && (
        <figure>
          <QrCode text={address} label={t('addressQr', { url: address })} />
          <figcaption>
            <strong>{t('address')}</strong>
            {state.https_urls.map((url) => (
              <code key={url}>{url}</code>
            ))}
          </figcaption>
        </figure>
      )}
      {authority && (
        <figure>
          <QrCode text={authority} label={t('authorityQr', { url: authority })} />
          <figcaption>
            <strong>{t('authority')}</strong>
            <code>{authority}</code>
          </figcaption>
        </figure>
      )}
      {state.fingerprint && (
        <p className="fingerprint">
          {t('fingerprint')}
          <Fingerprint value={state.fingerprint} testId="share-fingerprint" />
        </p>
      )}
      <div className="trust-steps">
        <section>
          <h3>{t('android.title')}</h3>
          <ol>
            <li>{t('android.download')}</li>
            <li>{t('android.install')}</li>
            <li>{t('android.open')}</li>
          </ol>
        </section>
        <section>
          <h3>{t('ios.title')}</h3>
          <ol>
            <li>{t('ios.download')}</li>
            <li>{t('ios.install')}</li>
            <li>{t('ios.trust')}</li>
            <li>{t('ios.open')}</li>
          </ol>
        </section>
      </div>
      {state.http_urls.length > 0 && (
        <p className="muted">
          {t('plainHttp')}
          {state.http_urls.map((url) => (
            <code key={url}>{url}</code>
          ))}
        </p>
      )}
      {state.certificate_fingerprint && (
        <p className="muted fingerprint">
          {t('certificateFingerprint')}
          <Fingerprint value={state.certificate_fingerprint} />
        </p>
      )}
    </div>
  );
}

/** The same, over the door screen, when the desktop menu asks for it. */
export function SharePanel({ api, onClose }: { api: Api; onClose: () => void }) {
  const { t } = useTranslation('lan');
  return (
    <Dialog title={t('title')} onClose={onClose} wide>
      <ShareDetails api={api} />
    </Dialog>
  );
}

/** The console's page for it. */
export function SharePage({ api }: { api: Api }) {
  const { t } = useTranslation('lan');
  return (
    <section className="share-page" aria-labelledby="share-title">
      <h1 id="share-title">{t('title')}</h1>
      <p className="muted">{t('intro')}</p>
      <ShareDetails api={api} />
    </section>
  );
}
