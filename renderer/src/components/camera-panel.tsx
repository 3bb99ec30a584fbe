import { useEffect, useRef, useState } from 'react';
import { Dialog } from './dialog';

/** Browsers give the camera to secure pages only (HTTPS or the desktop app's loopback). */
export function cameraAvailable(): boolean {
  return window.isSecureContext && !!navigator.mediaDevices?.getUserMedia;
}

const REPEAT_MS = 2500;

/** Reads QR codes and barcodes with the camera; each new code is scanned like a typed one. */
export function CameraPanel({ onCode, onClose }: { onCode: (code: string) => void; onClose: () => void }) {
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
          // The same code stays in view for a while: read it once.
          if (code === last.current.code && now - last.current.at < REPEAT_MS) return;
          last.current = { code, at: now };
          handler.current(code);
        });
        if (cancelled) controls.stop();
        else stop = () => controls.stop();
      } catch (err) {
        if (!cancelled) setError(`The camera cannot be used: ${(err as Error).message}`);
      }
    })();
    return () => {
      cancelled = true;
      stop?.();
    };
  }, []);

  return (
    <Dialog title="Camera scan" onClose={onClose}>
      {/* eslint-disable-next-line jsx-a11y/media-has-caption */}
      <video ref={video} className="camera" muted playsInline />
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : (
        <p className="muted">Hold the ticket’s code in front of the camera. Results show behind this panel.</p>
      )}
    </Dialog>
  );
}
