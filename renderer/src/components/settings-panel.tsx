import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { i18next, LANGUAGES, type Language } from '../i18n';
import type { StationSettings } from '../door/use-station-settings';
import { Dialog } from './dialog';
import { BadgeSettingsFields } from './badge-settings';

const PIN_PATTERN = /^\d{4,8}$/;

/** This station: its name on every scan, the NFC fallback, language, sound and the kiosk lock. */
export function SettingsPanel({
  settings,
  onSave,
  onEvents,
  onSignOut,
  onClose,
}: {
  settings: StationSettings;
  onSave: (next: StationSettings & { language: Language }) => void;
  onEvents: () => void;
  onSignOut: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation('door');
  const [name, setName] = useState(settings.station);
  const [fallback, setFallback] = useState(settings.nfcFallback);
  const [language, setLanguageChoice] = useState<Language>(i18next.language as Language);
  const [muted, setMuted] = useState(settings.sound.muted);
  const [volume, setVolume] = useState(Math.round(settings.sound.volume * 100));
  const [pin, setPin] = useState(settings.pin);
  const [badges, setBadges] = useState(settings.badges);
  const [error, setError] = useState<string>();

  return (
    <Dialog title={t('settings.title')} onClose={onClose}>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!name.trim()) return;
          if (pin && !PIN_PATTERN.test(pin)) {
            setError(t('settings.pinRule'));
            return;
          }
          onSave({ station: name.trim().slice(0, 128), nfcFallback: fallback, sound: { muted, volume: volume / 100 }, pin, language, badges });
        }}
      >
        <label>
          {t('settings.station')}
          <input name="station" value={name} autoFocus maxLength={128} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          {t('common:language')}
          <select name="language" value={language} onChange={(e) => setLanguageChoice(e.target.value as Language)}>
            {LANGUAGES.map((l) => (
              <option key={l.code} value={l.code}>
                {l.name}
              </option>
            ))}
          </select>
        </label>
        <fieldset className="sound">
          <legend>{t('settings.sound')}</legend>
          <label className="check">
            <input type="checkbox" name="muted" checked={muted} onChange={(e) => setMuted(e.target.checked)} />
            {t('settings.mute')}
          </label>
          <label>
            {t('settings.volume', { volume })}
            <input type="range" name="volume" min={0} max={100} step={5} value={volume} disabled={muted} onChange={(e) => setVolume(Number(e.target.value))} />
          </label>
        </fieldset>
        <BadgeSettingsFields value={badges} onChange={setBadges} />
        <label className="check">
          <input type="checkbox" checked={fallback} onChange={(e) => setFallback(e.target.checked)} />
          {t('settings.nfcFallback')}
        </label>
        <label>
          {t('settings.pin')}
          <input name="pin" type="password" inputMode="numeric" autoComplete="new-password" value={pin} maxLength={8} onChange={(e) => setPin(e.target.value.replace(/\D/g, ''))} aria-describedby="pin-help" />
          <span className="muted" id="pin-help">
            {t('settings.pinHelp')}
          </span>
        </label>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary big">
          {t('common:save')}
        </button>
      </form>
      {/* Reached past the lock already: leaving needs no second PIN. */}
      <div className="row leave">
        <button type="button" onClick={onEvents}>
          {t('top.events')}
        </button>
        <button type="button" onClick={onSignOut}>
          {t('common:signOut')}
        </button>
      </div>
    </Dialog>
  );
}

/** The kiosk lock asking for its PIN before the guarded action. */
export function PinPrompt({ onUnlock, onClose }: { onUnlock: (pin: string) => boolean; onClose: () => void }) {
  const { t } = useTranslation('door');
  const [pin, setPin] = useState('');
  const [wrong, setWrong] = useState(false);
  return (
    <Dialog title={t('lock.title')} onClose={onClose}>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!onUnlock(pin)) {
            setWrong(true);
            setPin('');
          }
        }}
      >
        <label>
          {t('lock.pin')}
          <input name="unlock-pin" type="password" inputMode="numeric" autoComplete="off" autoFocus value={pin} maxLength={8} onChange={(e) => setPin(e.target.value.replace(/\D/g, ''))} />
        </label>
        {wrong && (
          <p className="error" role="alert">
            {t('lock.wrong')}
          </p>
        )}
        <button type="submit" className="primary big">
          {t('lock.unlock')}
        </button>
      </form>
    </Dialog>
  );
}
