import { useEffect, useRef } from 'react';

/**
 * A keyboard-wedge reader (a USB barcode or NFC reader that types like a keyboard) types a
 * whole code at a steady 5-30 ms a key; the fastest people average over 100 ms a key. A
 * burst is keys with no pause over READER_PAUSE_MS; it is a reader's when it has
 * READER_MIN_CHARS keys or more at READER_MEAN_MS a key or less, Enter included (a busy
 * machine delivers a reader's keys unevenly, so the mean decides, not each gap).
 */
const READER_PAUSE_MS = 120;
const READER_MEAN_MS = 50;
const READER_MIN_CHARS = 4;

/** A field that takes typing: keys typed there are the person's, not the door's shortcuts. */
export function isTextField(target: EventTarget | null): target is HTMLElement {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/**
 * Puts back the value a field had before a reader's burst, the way typing would, so React sees
 * it: whatever the field made of the keys (a PIN field keeps digits only, up to its length),
 * none of them stays.
 */
function untype(target: EventTarget | null, before: string): void {
  if (!(target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) || target.value === before) return;
  const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(target), 'value')?.set;
  setter?.call(target, before);
  target.dispatchEvent(new Event('input', { bubbles: true }));
}

const valueOf = (target: EventTarget | null) => (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement ? target.value : '');

/**
 * While a dialog is open, a burst of keys at reader speed ending in Enter is a scan: the code
 * goes to the scan, not into the dialog's field, and the Enter does not submit the dialog.
 * Listens first (capture, registered before any dialog's own listener).
 */
export function useWedgeReaderOverDialogs(dialogOpen: boolean, onCode: (code: string) => void): void {
  const state = useRef({ open: dialogOpen, chars: '', first: 0, last: 0, target: null as EventTarget | null, before: '' });
  state.current.open = dialogOpen;
  const latest = useRef(onCode);
  latest.current = onCode;

  useEffect(() => {
    const listener = (e: KeyboardEvent) => {
      const s = state.current;
      if (!s.open) {
        s.chars = '';
        return;
      }
      const now = e.timeStamp;
      const fast = now - s.last <= READER_PAUSE_MS;
      if (e.key === 'Enter') {
        const mean = (now - s.first) / Math.max(1, s.chars.length);
        if (fast && s.chars.length >= READER_MIN_CHARS && mean <= READER_MEAN_MS) {
          e.preventDefault();
          e.stopImmediatePropagation();
          untype(s.target, s.before);
          latest.current(s.chars);
        }
        s.chars = '';
        s.last = now;
        return;
      }
      if (e.key.length !== 1 || e.ctrlKey || e.metaKey || e.altKey) {
        if (e.key !== 'Shift') s.chars = '';
        return;
      }
      // A key into a drop-down would pick an option: a reader's keys never reach one.
      if (e.target instanceof HTMLSelectElement && fast && s.chars) e.preventDefault();
      if (fast && s.chars) s.chars += e.key;
      else {
        s.chars = e.key;
        s.first = now;
        // Read on keydown, before the key lands: the field as it was before the burst.
        s.before = valueOf(e.target);
      }
      s.target = e.target;
      s.last = now;
    };
    window.addEventListener('keydown', listener, true);
    return () => window.removeEventListener('keydown', listener, true);
  }, []);
}

