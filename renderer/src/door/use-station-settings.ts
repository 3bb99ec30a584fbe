import { useCallback, useEffect, useState } from 'react';
import { setLanguage, type Language } from '../i18n';
import { loadSoundSettings, saveSoundSettings, type SoundSettings } from '../sounds';
import { initialStation, saveStation } from '../station';

const NFC_FALLBACK_KEY = 'doorlist.nfcFallback';
const PIN_KEY = 'doorlist.kioskPin';
const BADGES_KEY = 'doorlist.badges';

/** How this station prints badges (issue 39). */
export interface BadgeSettings {
  /** Print the badge as soon as a guest is checked in at the event door. */
  printOnCheckIn: boolean;
  printTwice: boolean;
  /** The desktop app's printer for silent printing; empty: the print dialog. */
  printer: string;
}

const NO_BADGES: BadgeSettings = { printOnCheckIn: false, printTwice: false, printer: '' };

function loadBadgeSettings(): BadgeSettings {
  try {
    const saved = JSON.parse(localStorage.getItem(BADGES_KEY) ?? '{}') as Partial<BadgeSettings>;
    return { printOnCheckIn: saved.printOnCheckIn === true, printTwice: saved.printTwice === true, printer: typeof saved.printer === 'string' ? saved.printer : '' };
  } catch {
    return NO_BADGES;
  }
}

export interface StationSettings {
  station: string;
  nfcFallback: boolean;
  sound: SoundSettings;
  /** The kiosk lock's PIN; empty when the station is not locked. */
  pin: string;
  badges: BadgeSettings;
}

/**
 * What belongs to this station and is remembered in its browser: its name, the NFC fallback,
 * the sound, the language, the kiosk lock and how it prints badges.
 */
export function useStationSettings() {
  const [settings, setSettings] = useState<StationSettings>(() => ({
    station: localStorage.getItem('doorlist.station') ?? '',
    nfcFallback: localStorage.getItem(NFC_FALLBACK_KEY) !== 'off',
    sound: loadSoundSettings(),
    pin: localStorage.getItem(PIN_KEY) ?? '',
    badges: loadBadgeSettings(),
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
    localStorage.setItem(BADGES_KEY, JSON.stringify(next.badges));
    setSettings({ station: next.station, nfcFallback: next.nfcFallback, sound: next.sound, pin: next.pin, badges: next.badges });
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
