import { useEffect, useRef } from 'react';

/** Keys closer together than this are a reader typing, not a person. */
const READER_GAP_MS = 35;
/** Shorter bursts could be a fast typist's word; codes are longer. */
const READER_MIN_CHARS = 4;

function isTextField(target: EventTarget | null): target is HTMLElement {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/** Takes `text` off the end of an input's value the way typing would, so React sees it. */
function untype(target: EventTarget | null, text: string): void {
  if (!(target instanceof HTMLInputElement) || !target.value.endsWith(text)) return;
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
  setter?.call(target, target.value.slice(0, -text.length));
  target.dispatchEvent(new Event('input', { bubbles: true }));
}

/**
 * While a dialog is open, a burst of keys at reader speed ending in Enter is a scan: the code
 * goes to the scan, not into the dialog's field, and the Enter does not submit the dialog.
 * Listens first (capture, registered before any dialog's own listener).
 */
export function useReaderWhileDialogOpen(dialogOpen: boolean, onCode: (code: string) => void): void {
  const state = useRef({ open: dialogOpen, chars: '', last: 0, target: null as EventTarget | null });
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
      const fast = now - s.last <= READER_GAP_MS;
      if (e.key === 'Enter') {
        if (fast && s.chars.length >= READER_MIN_CHARS) {
          e.preventDefault();
          e.stopImmediatePropagation();
          untype(s.target, s.chars);
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
      s.chars = fast ? s.chars + e.key : e.key;
      s.target = e.target;
      s.last = now;
    };
    window.addEventListener('keydown', listener, true);
    return () => window.removeEventListener('keydown', listener, true);
  }, []);
}

export interface DoorKeys {
  search: () => void;
  walkIn: () => void;
  toggleDirection: () => void;
  session: () => void;
  camera?: () => void;
  log: () => void;
  undo: () => void;
  escape: () => void;
  /** Any other printable key outside a text field: a reader typing, the scan field takes it. */
  typing: () => void;
}

/** The door's function keys while no dialog is open. */
export function useDoorKeys(active: boolean, scanField: () => HTMLElement | null, keys: DoorKeys): void {
  const latest = useRef({ active, keys, scanField });
  latest.current = { active, keys, scanField };
  useEffect(() => {
    const listener = (e: KeyboardEvent) => {
      const { active: on, keys: k, scanField: field } = latest.current;
      if (!on) return;
      const actions: Record<string, (() => void) | undefined> = { F2: k.search, F3: k.log, F4: k.walkIn, F6: k.toggleDirection, F7: k.session, F8: k.camera };
      const action = actions[e.key];
      if (action) {
        e.preventDefault();
        action();
        return;
      }
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'z' && (!isTextField(e.target) || e.target === field())) {
        e.preventDefault();
        k.undo();
        return;
      }
      if (e.key === 'Escape') return k.escape();
      if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey && !isTextField(e.target)) k.typing();
    };
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);
}
