import type { ScanResult } from './types';

type Tone = { freq: number; ms: number; type?: OscillatorType };

/** One short pattern per kind of answer, told apart without looking (no audio files). */
const PATTERNS: Record<'ok' | 'out' | 'warn' | 'error' | 'queued', Tone[]> = {
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
};

export function soundFor(outcome: ScanResult['outcome']): keyof typeof PATTERNS | undefined {
  switch (outcome) {
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

export function beep(outcome: ScanResult['outcome']): void {
  const pattern = soundFor(outcome);
  if (!pattern || typeof AudioContext === 'undefined') return;
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
        gain.gain.exponentialRampToValueAtTime(0.25, at + 0.01);
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
