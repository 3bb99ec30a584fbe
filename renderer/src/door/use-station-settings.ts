import { useCallback, useEffect, useState } from 'react';
import { setLanguage, type Language } from '../i18n';
import { loadSoundSettings, saveSoundSettings, type SoundSettings } from '../sounds';
import { initialStation, saveStation } from '../station';

const NFC_FALLBACK_KEY = 'doorlist.nfcFallback';
const PIN_KEY = 'doorlist.kioskPin';

export interface StationSettings {
  station: string;
  nfcFallback: boolean;
  sound: SoundSettings;
  /** The kiosk lock's PIN; empty when the station is not locked. */
  pin: string;
}

/**
 * What belongs to this station and is remembered in its browser: its name, the NFC fallback,
 * the sound, the language and the kiosk lock.
 */
export function useStationSettings() {
  const [settings, setSettings] = useState<StationSettings>(() => ({
    station: localStorage.getItem('doorlist.station') ?? '',
    nfcFallback: localStorage.getItem(NFC_FALLBACK_KEY) !== 'off',
    sound: loadSoundSettings(),
    pin: localStorage.getItem(PIN_KEY) ?? '',
  }));

  useEffect(() => {
    void initialStation().then((station) => setSettings((s) => ({ ...s, station })));
  }, []);

  const save = useCallback((next: StationSettings & { language?: Language }) => {
    saveStation(next.station);
    localStorage.setItem(NFC_FALLBACK_KEY, next.nfcFallback ? 'on' : 'off');
    saveSoundSettings(next.sound);
    if (next.pin) localStorage.setItem(PIN_KEY, next.pin);
    else localStorage.removeItem(PIN_KEY);
    if (next.language) setLanguage(next.language);
    setSettings({ station: next.station, nfcFallback: next.nfcFallback, sound: next.sound, pin: next.pin });
  }, []);

  const setSound = useCallback((sound: SoundSettings) => {
    saveSoundSettings(sound);
    setSettings((s) => ({ ...s, sound }));
  }, []);

  return { settings, save, setSound };
}

/** What the kiosk lock guards: a PIN is asked before it runs. */
export type Guarded = 'sign-out' | 'events' | 'settings';

/**
 * The kiosk lock: with a PIN set, signing out, leaving the event and the station's settings
 * ask for it first. `asking` is the action waiting for the PIN.
 */
export function useKioskLock(pin: string, actions: Record<Guarded, () => void>) {
  const [asking, setAsking] = useState<Guarded>();
  const guard = useCallback(
    (what: Guarded) => {
      if (pin) setAsking(what);
      else actions[what]();
    },
    [pin, actions],
  );
  const unlock = useCallback(
    (entered: string): boolean => {
      if (!asking || entered !== pin) return false;
      const what = asking;
      setAsking(undefined);
      actions[what]();
      return true;
    },
    [asking, pin, actions],
  );
  return { locked: pin !== '', asking, guard, unlock, cancel: () => setAsking(undefined) };
}
