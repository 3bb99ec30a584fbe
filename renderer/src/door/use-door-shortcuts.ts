import { useEffect, useRef } from 'react';
import { isTextField } from './use-wedge-reader-over-dialogs';

export interface DoorShortcuts {
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

/** The door's function keys (F2 search, F3 log, F4 walk-in, F6 check-out, F7 session, F8 camera, Ctrl+Z undo) while no dialog is open. */
export function useDoorShortcuts(active: boolean, scanField: () => HTMLElement | null, keys: DoorShortcuts): void {
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
