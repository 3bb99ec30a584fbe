import { useId, useMemo, useState, type ReactNode } from 'react';
import { Controller, useForm, useWatch, type FieldValues, type Path, type PathValue, type UseFormProps, type UseFormReturn } from 'react-hook-form';
import { DayPicker } from 'react-day-picker';
import 'react-day-picker/style.css';
import { useTranslation } from 'react-i18next';
import { detailOf, OfflineError, type ApiAnswer } from '../api';
import { TIMEZONES } from '../../../core/messages';
import { suggestZone } from './zone-suggest';

/**
 * A form whose truth is the server: it sends, and a 400's field errors (`{field: [message]}`)
 * are shown beside their fields in the server's own words; anything else above the buttons.
 */
export function useServerForm<T extends FieldValues>(options: UseFormProps<T>) {
  const form = useForm<T>(options);
  const [formError, setFormError] = useState<string>();
  const { t } = useTranslation('console');

  const submitWith = (send: (values: T) => Promise<ApiAnswer>, onDone: (body: any) => void) =>
    form.handleSubmit(async (values) => {
      setFormError(undefined);
      let answer: ApiAnswer;
      try {
        answer = await send(values);
      } catch (err) {
        setFormError(err instanceof OfflineError ? t('offline') : (err as Error).message);
        return;
      }
      if (answer.status >= 200 && answer.status < 300) {
        onDone(answer.body);
        return;
      }
      const shown = applyFieldErrors(form, answer.body);
      if (!shown) setFormError(detailOf(answer.body) ?? t('serverAnswered', { status: answer.status }));
    });

  return { form, formError, submitWith };
}

/** Puts each field error on its field; answers false when none matched a field of the form. */
function applyFieldErrors<T extends FieldValues>(form: UseFormReturn<T>, body: unknown): boolean {
  if (!body || typeof body !== 'object') return false;
  const names = new Set(Object.keys(form.getValues()));
  let shown = false;
  for (const [field, messages] of Object.entries(body as Record<string, unknown>)) {
    if (!names.has(field) || !Array.isArray(messages)) continue;
    form.setError(field as Path<T>, { type: 'server', message: messages.map(String).join(' ') });
    shown = true;
  }
  // A body with a field error and a detail shows both; one with only foreign keys shows as text.
  return shown && Object.keys(body).every((key) => names.has(key));
}

/** Blank optional text is "not given": omitted, so the server keeps its default. */
export function withoutBlanks<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '' && v !== undefined && !(typeof v === 'number' && Number.isNaN(v)))) as Partial<T>;
}

/** A number field's value: a number when it is one, else what was typed (the server says why). */
export const asNumber = (value: string) => (value === '' ? undefined : Number.isNaN(Number(value)) ? value : Number(value));

function ErrorText({ message }: { message?: string }) {
  return message ? <span className="field-error">{message}</span> : null;
}

/** `hint`: a line under the field that says what it means (its input is described by it). */
type FieldProps<T extends FieldValues> = { form: UseFormReturn<T>; name: Path<T>; label: string; required?: boolean; hint?: string };

const hintId = (name: string) => `${name}-hint`;

// Inside the field's label, kept out of its name (aria-hidden) and read as its description instead.
function HintText({ name, hint }: { name: string; hint?: string }) {
  return hint ? (
    <span className="field-note" id={hintId(name)} aria-hidden="true">
      {hint}
    </span>
  ) : null;
}

export function TextField<T extends FieldValues>({ form, name, label, required, type = 'text', multiline, autoFocus }: FieldProps<T> & { type?: string; multiline?: boolean; autoFocus?: boolean }) {
  const error = form.formState.errors[name]?.message as string | undefined;
  return (
    <label className="field">
      <span className={required ? 'required' : undefined}>{label}</span>
      {multiline ? (
        <textarea {...form.register(name)} aria-invalid={!!error} rows={3} />
      ) : (
        <input {...form.register(name)} type={type} aria-invalid={!!error} autoFocus={autoFocus} autoComplete="off" />
      )}
      <ErrorText message={error} />
    </label>
  );
}

export function NumberField<T extends FieldValues>({ form, name, label, required, step, hint }: FieldProps<T> & { step?: string }) {
  const error = form.formState.errors[name]?.message as string | undefined;
  return (
    <label className="field">
      <span className={required ? 'required' : undefined}>{label}</span>
      <input {...form.register(name, { setValueAs: asNumber })} inputMode="decimal" step={step} aria-invalid={!!error} aria-describedby={hint ? hintId(name) : undefined} />
      <HintText name={name} hint={hint} />
      <ErrorText message={error} />
    </label>
  );
}

export function CheckField<T extends FieldValues>({ form, name, label }: FieldProps<T>) {
  const error = form.formState.errors[name]?.message as string | undefined;
  return (
    <label className="field check">
      <input type="checkbox" {...form.register(name)} />
      <span>{label}</span>
      <ErrorText message={error} />
    </label>
  );
}

export function SelectField<T extends FieldValues>({ form, name, label, required, options, numeric }: FieldProps<T> & { options: { value: string | number; label: string }[]; numeric?: boolean }) {
  const error = form.formState.errors[name]?.message as string | undefined;
  return (
    <label className="field">
      <span className={required ? 'required' : undefined}>{label}</span>
      <select {...form.register(name, numeric ? { setValueAs: asNumber } : {})} aria-invalid={!!error}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <ErrorText message={error} />
    </label>
  );
}

/**
 * Searchable: typing filters the spec's 39 timezones (the browser's own suggestion list). The
 * API's answer to a zone it does not take lists all 39; the field says it in one line instead,
 * since its suggestions already are that list. A real zone outside the list (Europe/Berlin) is
 * answered as it is typed with the accepted zone that keeps the same clock, one click away.
 */
export function TimezoneField<T extends FieldValues>({ form, name, label, required }: FieldProps<T>) {
  const listId = useId();
  const { t } = useTranslation('console');
  const value = useWatch({ control: form.control, name });
  const answer = form.formState.errors[name]?.message as string | undefined;
  const unknown = typeof value === 'string' && value !== '' && !TIMEZONES.includes(value);
  const suggestion = useMemo(() => (typeof value === 'string' ? suggestZone(value) : undefined), [value]);
  const error = answer && unknown && !suggestion ? t('timezoneUnknown', { value }) : suggestion ? undefined : answer;
  return (
    <label className="field">
      <span className={required ? 'required' : undefined}>{label}</span>
      <input {...form.register(name)} list={listId} role="combobox" autoComplete="off" spellCheck={false} aria-invalid={!!error || !!suggestion} />
      <datalist id={listId}>
        {TIMEZONES.map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
      {suggestion && (
        <span className="field-hint" role="status" data-testid="timezone-suggestion">
          {t(suggestion.kind === 'same-clock' ? 'timezoneSameClock' : 'timezoneSameToday', { value: String(value).trim(), zone: suggestion.zone })}{' '}
          <button
            type="button"
            className="link-button"
            onClick={(e) => {
              e.preventDefault();
              form.setValue(name, suggestion.zone as PathValue<T, Path<T>>, { shouldValidate: false, shouldDirty: true });
              form.clearErrors(name);
            }}
          >
            {t('timezoneUse', { zone: suggestion.zone })}
          </button>
        </span>
      )}
      <ErrorText message={error} />
    </label>
  );
}

const pad = (n: number) => String(n).padStart(2, '0');
const dayOf = (date: Date) => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;

/**
 * The API's `YYYY-MM-DDThh:mm`, typed or picked: the calendar sets the day and keeps the time
 * already in the field; an empty field gets `defaultTime` (18:00: Doorlist's events are the
 * evening's, and a forgotten 00:00 would open the door on the night before). The value is a
 * wall-clock time, never converted.
 */
export function DateTimeField<T extends FieldValues>({ form, name, label, required, defaultTime = '18:00' }: FieldProps<T> & { defaultTime?: string }) {
  const [open, setOpen] = useState(false);
  const { t } = useTranslation('console');
  const error = form.formState.errors[name]?.message as string | undefined;
  return (
    <Controller
      control={form.control}
      name={name}
      render={({ field }) => {
        const value = typeof field.value === 'string' ? field.value : '';
        const match = /^(\d{4})-(\d\d)-(\d\d)/.exec(value);
        const selected = match ? new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : undefined;
        const time = /T(\d\d:\d\d)/.exec(value)?.[1] ?? defaultTime;
        return (
          <div className={open ? 'field datetime open' : 'field datetime'}>
            <label>
              <span className={required ? 'required' : undefined}>{label}</span>
              <input value={value} onChange={field.onChange} onBlur={field.onBlur} name={field.name} placeholder="YYYY-MM-DDThh:mm" spellCheck={false} aria-invalid={!!error} />
            </label>
            <button type="button" className="calendar-button" aria-expanded={open} aria-label={t('pickDate', { field: label })} onClick={() => setOpen(!open)}>
              <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2">
                <rect x="3" y="5" width="18" height="16" rx="2" />
                <path d="M3 10h18M8 3v4M16 3v4" />
              </svg>
            </button>
            {open && (
              <div className="calendar-pop">
                <DayPicker
                  mode="single"
                  selected={selected}
                  defaultMonth={selected}
                  onSelect={(day) => {
                    if (day) field.onChange(`${dayOf(day)}T${time}`);
                    setOpen(false);
                  }}
                />
              </div>
            )}
            <ErrorText message={error} />
          </div>
        );
      }}
    />
  );
}

/** The form's own error (not about one field) and its buttons. */
export function FormFooter({ error, busy, submitLabel, onCancel, children }: { error?: string; busy: boolean; submitLabel: string; onCancel?: () => void; children?: ReactNode }) {
  const { t } = useTranslation('common');
  return (
    <>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="form-buttons">
        {children}
        {onCancel && (
          <button type="button" onClick={onCancel}>
            {t('cancel')}
          </button>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </>
  );
}
