import type { ScanResult } from './types';

type Tone = { freq: number; ms: number; type?: OscillatorType };

/** One short pattern per kind of answer, told apart without looking (no audio files). */
const PATTERNS: Record<'ok' | 'out' | 'warn' | 'error' | 'queued' | 'attention' | 'double', Tone[]> = {
  ok: [
    { freq: 880, ms: 90 },
    { freq: 1320, ms: 140 },
  ],
  out: [
    { freq: 1320, ms: 90 },
    { freq: 880, ms: 140 },
  ],
  warn: [
    { freq: 660, ms: 120, type: 'triangle' },
    { freq: 0, ms: 60 },
    { freq: 660, ms: 120, type: 'triangle' },
  ],
  error: [{ freq: 196, ms: 420, type: 'square' }],
  queued: [{ freq: 520, ms: 160, type: 'triangle' }],
  // Rising three notes: admitted, but stop and look.
  attention: [
    { freq: 660, ms: 110 },
    { freq: 880, ms: 110 },
    { freq: 1175, ms: 220, type: 'triangle' },
  ],
  // The error tone twice: someone is inside who should not have been let in twice.
  double: [
    { freq: 196, ms: 300, type: 'square' },
    { freq: 0, ms: 80 },
    { freq: 196, ms: 300, type: 'square' },
  ],
};

/** The station's sound: off, or a volume from 0 to 1. Remembered per station. */
export interface SoundSettings {
  muted: boolean;
  volume: number;
}

const SOUND_KEY = 'doorlist.sound';

export function loadSoundSettings(): SoundSettings {
  try {
    const saved = JSON.parse(localStorage.getItem(SOUND_KEY) ?? 'null') as Partial<SoundSettings> | null;
    const volume = typeof saved?.volume === 'number' && saved.volume >= 0 && saved.volume <= 1 ? saved.volume : 0.8;
    return { muted: saved?.muted === true, volume };
  } catch {
    return { muted: false, volume: 0.8 };
  }
}

let settings = loadSoundSettings();

export function saveSoundSettings(next: SoundSettings): void {
  settings = next;
  localStorage.setItem(SOUND_KEY, JSON.stringify(next));
}

export type Sound = keyof typeof PATTERNS;

export function soundFor(outcome: ScanResult['outcome']): Sound | undefined {
  switch (outcome) {
    case 'double_admission':
      return 'double';
    case 'checking':
      return undefined;
    case 'checked_in':
      return 'ok';
    case 'checked_out':
    case 'undone':
      return 'out';
    case 'already_checked_in':
    case 'not_checked_in':
      return 'warn';
    case 'queued':
      return 'queued';
    default:
      return 'error';
  }
}

let context: AudioContext | undefined;

/** The answer's pattern, or `attention` for a guest the door must stop for. */
export function beep(outcome: ScanResult['outcome'] | Sound): void {
  const pattern = outcome in PATTERNS ? (outcome as Sound) : soundFor(outcome as ScanResult['outcome']);
  if (!pattern || settings.muted || settings.volume <= 0 || typeof AudioContext === 'undefined') return;
  const peak = 0.3 * settings.volume;
  try {
    context ??= new AudioContext();
    if (context.state === 'suspended') void context.resume();
    let at = context.currentTime + 0.01;
    for (const tone of PATTERNS[pattern]) {
      if (tone.freq > 0) {
        const osc = context.createOscillator();
        const gain = context.createGain();
        osc.type = tone.type ?? 'sine';
        osc.frequency.value = tone.freq;
        // A quick ramp avoids clicks at start and end.
        gain.gain.setValueAtTime(0.0001, at);
        gain.gain.exponentialRampToValueAtTime(Math.max(0.0002, peak), at + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, at + tone.ms / 1000);
        osc.connect(gain).connect(context.destination);
        osc.start(at);
        osc.stop(at + tone.ms / 1000 + 0.02);
      }
      at += tone.ms / 1000;
    }
  } catch {
    // Sound is a courtesy; a browser without audio still shows the answer.
  }
}
