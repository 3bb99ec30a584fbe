import type { ShareInfo } from '../desktop';
import { Dialog } from './dialog';

/**
 * The desktop app's LAN sharing: the HTTPS address (text and QR code) to open on phones and
 * the certificate fingerprint to expect. Plain HTTP appears only where the laptop allows it.
 */
export function SharePanel({ info, onClose }: { info: ShareInfo; onClose: () => void }) {
  return (
    <Dialog title={info.sharing ? 'Sharing on the LAN' : 'Not sharing'} onClose={onClose} wide>
      {info.sharing ? (
        <div className="share">
          {info.httpsUrls[0] && (
            <figure>
              {info.httpsQr && <img src={info.httpsQr} alt={`QR code for ${info.httpsUrls[0]}`} width={220} height={220} />}
              <figcaption>
                <strong>Secure (camera and NFC):</strong>
                {info.httpsUrls.map((u) => (
                  <code key={u}>{u}</code>
                ))}
              </figcaption>
            </figure>
          )}
          {info.httpUrls[0] && (
            <figure>
              {info.httpQr && <img src={info.httpQr} alt={`QR code for ${info.httpUrls[0]}`} width={220} height={220} />}
              <figcaption>
                <strong>Plain HTTP (allowed by DOORLIST_LAN_HTTP=1 for old clients; no camera, sent in clear):</strong>
                {info.httpUrls.map((u) => (
                  <code key={u}>{u}</code>
                ))}
              </figcaption>
            </figure>
          )}
          {info.fingerprint && (
            <p className="fingerprint">
              The browser will warn about the certificate. Accept it only if it shows this SHA-256 fingerprint:
              <code>{info.fingerprint}</code>
            </p>
          )}
        </div>
      ) : (
        <p>This laptop serves only itself. Use “Share on the LAN” in the menu to let phones and other laptops in.</p>
      )}
    </Dialog>
  );
}
