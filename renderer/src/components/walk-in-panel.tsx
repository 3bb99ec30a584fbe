import { useState, type FormEvent } from 'react';
import { OfflineError, type Api } from '../api';
import type { RegistrationType } from '../types';
import { Dialog } from './dialog';

type Fields = { registration_type: string; first_name: string; last_name: string; email: string; company: string };

/** Adds a guest who is standing at the door and checks them in at once. */
export function WalkInPanel({ api, eventId, types, onAdded, onClose }: { api: Api; eventId: number; types: RegistrationType[]; onAdded: (guestId: number) => void; onClose: () => void }) {
  const [fields, setFields] = useState<Fields>({ registration_type: String(types[0]?.id ?? ''), first_name: '', last_name: '', email: '', company: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const set = (name: keyof Fields) => (e: { target: { value: string } }) => setFields({ ...fields, [name]: e.target.value });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      const answer = await api.request('POST', `/events/${eventId}/guests`, {
        registration_type: Number(fields.registration_type),
        first_name: fields.first_name.trim(),
        last_name: fields.last_name.trim(),
        email: fields.email.trim(),
        ...(fields.company.trim() ? { company: fields.company.trim() } : {}),
      });
      if (answer.status === 201) {
        onAdded(answer.body.id);
        return;
      }
      const found: Record<string, string> = {};
      for (const [key, value] of Object.entries((answer.body ?? {}) as Record<string, unknown>)) found[key] = Array.isArray(value) ? value.join(' ') : String(value);
      setErrors(Object.keys(found).length ? found : { form: `The server answered ${answer.status}.` });
    } catch (err) {
      setErrors({ form: err instanceof OfflineError ? 'The server cannot be reached: a walk-in needs it. Try again in a moment.' : (err as Error).message });
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
    <Dialog title="Add a walk-in" onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <label>
          Registration type
          <select name="registration_type" value={fields.registration_type} onChange={set('registration_type')} required autoFocus>
            {types.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
          {errors.registration_type && <span className="field-error">{errors.registration_type}</span>}
        </label>
        <div className="two">
          {field('first_name', 'First name', { required: true, autoComplete: 'off' })}
          {field('last_name', 'Last name', { required: true, autoComplete: 'off' })}
        </div>
        {field('email', 'E-mail', { type: 'email', required: true, autoComplete: 'off' })}
        {field('company', 'Company (optional)', { autoComplete: 'off' })}
        {(errors.form || errors.details || errors.detail) && (
          <p className="error" role="alert">
            {errors.form ?? errors.details ?? errors.detail}
          </p>
        )}
        <button type="submit" className="primary big" disabled={busy || !types.length}>
          {busy ? 'Adding…' : 'Add and check in'}
        </button>
        {!types.length && <p className="error">This event has no registration types yet.</p>}
      </form>
    </Dialog>
  );
}
