import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { OfflineError, type Api } from '../api';
import { newUid } from '../../../core/uid';
import type { OfflineGuestList } from '../offline-guest-list';
import type { QueuedItem, WalkInFields } from '../scan-queue';
import type { CodeKind, RegistrationType } from '../types';
import { Dialog } from './dialog';

type Fields = { registration_type: string; first_name: string; last_name: string; email: string; company: string };

// The server's own barcode alphabet (no 0/O, 1/I), 12 symbols: 60 random bits.
const BARCODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/**
 * The walk-in's barcode, made here: the guest-create API takes no client uid, so this unique
 * code is what makes a replayed create harmless (the second one answers "barcode already
 * exists") and what the queued check-in names the guest by.
 */
function walkInBarcode(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => BARCODE_ALPHABET[b & 31]).join('');
}

export interface WalkInAdded {
  kind: CodeKind;
  code: string;
  label: string;
}

/** Adds a guest who is standing at the door and checks them in at once, online or not. */
export function WalkInPanel({
  api,
  eventId,
  types,
  guestList,
  online,
  onOffline,
  onQueue,
  onAdded,
  onClose,
}: {
  api: Api;
  eventId: number;
  types: RegistrationType[];
  guestList?: OfflineGuestList;
  online: boolean;
  onOffline: () => void;
  onQueue: (item: QueuedItem) => Promise<void>;
  onAdded: (added: WalkInAdded) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation('door');
  const [fields, setFields] = useState<Fields>({ registration_type: String(types[0]?.id ?? ''), first_name: '', last_name: '', email: '', company: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const set = (name: keyof Fields) => (e: { target: { value: string } }) => setFields({ ...fields, [name]: e.target.value });

  /** Offline: the walk-in waits in the queue and joins the offline guest list, so it is found and admitted here. */
  const addOffline = async (guest: WalkInFields) => {
    if (!guestList?.loaded) {
      setErrors({ form: t('walkIn.needsServer') });
      return;
    }
    await onQueue({ type: 'walk_in', uid: newUid(), eventId, queuedAt: Date.now(), fields: guest });
    await guestList.add({ ...guest, id: -Date.now(), eventId, objstatus: '1', checked_in_at: null, nfc_tag: null });
    onAdded({ kind: 'barcode', code: guest.barcode, label: `${guest.first_name} ${guest.last_name}` });
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    const guest: WalkInFields = {
      registration_type: Number(fields.registration_type),
      first_name: fields.first_name.trim(),
      last_name: fields.last_name.trim(),
      email: fields.email.trim(),
      ...(fields.company.trim() ? { company: fields.company.trim() } : {}),
      barcode: walkInBarcode(),
    };
    try {
      if (!online) {
        await addOffline(guest);
        return;
      }
      const answer = await api.request('POST', `/events/${eventId}/guests`, guest, { timeoutMs: 2500 });
      if (answer.status === 201) {
        onAdded({ kind: 'guest_id', code: String(answer.body.id), label: `${guest.first_name} ${guest.last_name}` });
        return;
      }
      const found: Record<string, string> = {};
      for (const [key, value] of Object.entries((answer.body ?? {}) as Record<string, unknown>)) found[key] = Array.isArray(value) ? value.join(' ') : String(value);
      setErrors(Object.keys(found).length ? found : { form: t('walkIn.serverAnswered', { status: answer.status }) });
    } catch (err) {
      if (err instanceof OfflineError) {
        onOffline();
        await addOffline(guest);
      } else setErrors({ form: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };

  const field = (name: keyof Fields, label: string, props: Record<string, unknown> = {}) => (
    <label>
      {label}
      <input name={name} value={fields[name]} onChange={set(name)} aria-invalid={!!errors[name]} aria-describedby={errors[name] ? `${name}-error` : undefined} {...props} />
      {errors[name] && (
        <span className="field-error" id={`${name}-error`}>
          {errors[name]}
        </span>
      )}
    </label>
  );

  return (
    <Dialog title={t('walkIn.title')} onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <label>
          {t('walkIn.type')}
          <select name="registration_type" value={fields.registration_type} onChange={set('registration_type')} required>
            {types.map((type) => (
              <option key={type.id} value={type.id}>
                {type.name}
              </option>
            ))}
          </select>
          {errors.registration_type && <span className="field-error">{errors.registration_type}</span>}
        </label>
        <div className="two">
          {field('first_name', t('walkIn.firstName'), { required: true, autoComplete: 'off', autoFocus: true })}
          {field('last_name', t('walkIn.lastName'), { required: true, autoComplete: 'off' })}
        </div>
        {field('email', t('walkIn.email'), { type: 'email', required: true, autoComplete: 'off' })}
        {field('company', t('walkIn.company'), { autoComplete: 'off' })}
        {!online && <p className="muted">{t('walkIn.offline')}</p>}
        {(errors.form || errors.details || errors.detail) && (
          <p className="error" role="alert">
            {errors.form ?? errors.details ?? errors.detail}
          </p>
        )}
        <button type="submit" className="primary big" disabled={busy || !types.length}>
          {busy ? t('walkIn.adding') : t('walkIn.submit')}
        </button>
        {!types.length && <p className="error">{t('walkIn.noTypes')}</p>}
      </form>
    </Dialog>
  );
}
