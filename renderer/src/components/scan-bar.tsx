import { useState, type FormEvent, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import type { Direction } from '../types';

/**
 * The scan field: it keeps the focus, so keyboard-wedge barcode and NFC readers type the code
 * and Enter into it. `onCode` gets a trimmed code; Enter on the empty field (a person, never a
 * reader) calls `onEmptyEnter`.
 */
export function ScanBar({ inputRef, direction, onCode, onEmptyEnter, focusScan }: { inputRef: RefObject<HTMLInputElement | null>; direction: Direction; onCode: (code: string) => void; onEmptyEnter: () => void; focusScan: () => void }) {
  const { t } = useTranslation('door');
  // On touch screens the field keeps the focus without calling up the on-screen keyboard
  // (which would cover the answer) until someone taps the field to type.
  const [touchTyping, setTouchTyping] = useState(false);
  const coarse = typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const input = inputRef.current;
    const code = input?.value.trim() ?? '';
    if (input) input.value = '';
    if (code) onCode(code);
    else onEmptyEnter();
    setTouchTyping(false);
    focusScan();
  };

  return (
    <form className="scanbar" onSubmit={submit} role="search" aria-label={t('scan.label')}>
      <label htmlFor="scan-field">{direction === 'out' ? t('scan.out') : t('scan.in')}</label>
      <input
        id="scan-field"
        ref={inputRef}
        name="scan"
        autoFocus
        autoComplete="off"
        autoCapitalize="off"
        autoCorrect="off"
        spellCheck={false}
        enterKeyHint="go"
        inputMode={coarse && !touchTyping ? 'none' : 'text'}
        onPointerDown={() => setTouchTyping(true)}
        placeholder={t('scan.placeholder')}
        onBlur={(e) => {
          if (!e.relatedTarget) focusScan();
        }}
      />
      <button type="submit" className="primary">
        {t('scan.enter')}
      </button>
    </form>
  );
}
