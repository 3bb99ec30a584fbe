import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** Browsers give the camera to secure pages only (HTTPS or the desktop app's loopback). */
function cameraApi(): boolean {
  return window.isSecureContext && !!navigator.mediaDevices?.getUserMedia;
}

/** Whether this device has a camera the page may use; the camera button shows only then. */
export function useHasCamera(): boolean {
  const [has, setHas] = useState(false);
  useEffect(() => {
    if (!cameraApi()) return;
    let live = true;
    const check = () =>
      navigator.mediaDevices
        .enumerateDevices()
        .then((devices) => live && setHas(devices.some((d) => d.kind === 'videoinput')))
        .catch(() => undefined);
    void check();
    navigator.mediaDevices.addEventListener?.('devicechange', check);
    return () => {
      live = false;
      navigator.mediaDevices.removeEventListener?.('devicechange', check);
    };
  }, []);
  return has;
}

const REPEAT_MS = 2500;

/**
 * Reads QR codes and barcodes with the camera; each new code is scanned like a typed one.
 * A docked panel, not a dialog: the answer stays in full view and the keyboard keeps working.
 */
export function CameraPanel({ onCode, onClose }: { onCode: (code: string) => void; onClose: () => void }) {
  const { t } = useTranslation('door');
  const video = useRef<HTMLVideoElement>(null);
  const [error, setError] = useState<string>();
  const last = useRef({ code: '', at: 0 });
  const handler = useRef(onCode);
  handler.current = onCode;

  useEffect(() => {
    let stop: (() => void) | undefined;
    let cancelled = false;
    (async () => {
      try {
        // Loaded on first use: the decoder is most of the bundle and most stations never open it.
        const { BrowserMultiFormatReader } = await import('@zxing/browser');
        if (cancelled || !video.current) return;
        const reader = new BrowserMultiFormatReader();
        const controls = await reader.decodeFromConstraints({ video: { facingMode: 'environment' } }, video.current, (result) => {
          if (!result) return;
          const code = result.getText();
          const now = Date.now();
          // A ticket held up is seen in frame after frame: it counts again only after it has
          // been out of view for a moment.
          const seenJustNow = code === last.current.code && now - last.current.at < REPEAT_MS;
          last.current = { code, at: now };
          if (!seenJustNow) handler.current(code);
        });
        if (cancelled) controls.stop();
        else stop = () => controls.stop();
      } catch (err) {
        if (!cancelled) setError(t('camera.cannot', { message: (err as Error).message }));
      }
    })();
    return () => {
      cancelled = true;
      stop?.();
    };
  }, []);

  return (
    <section className="camera-dock" aria-label={t('camera.label')}>
      <header className="row">
        <h2>{t('camera.title')}</h2>
        <button type="button" className="close" onClick={onClose} aria-label={t('camera.close')}>
          ✕
        </button>
      </header>
      {/* eslint-disable-next-line jsx-a11y/media-has-caption */}
      <video ref={video} className="camera" muted playsInline />
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : (
        <p className="muted">{t('camera.hint')}</p>
      )}
    </section>
  );
}
