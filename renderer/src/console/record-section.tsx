import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { UseFormReturn } from 'react-hook-form';
import type { Api } from '../api';
import { Dialog } from '../components/dialog';
import { CheckField, DateTimeField, FormFooter, NumberField, SelectField, TextField, useServerForm, withoutBlanks } from './forms';
import { useList } from './use-list';

type Values = Record<string, any>;

/** One input of a record's form, drawn by kind; `createOnly` fields are shown only on create. */
export interface FieldSpec {
  name: string;
  label: string;
  kind: 'text' | 'textarea' | 'number' | 'check' | 'select' | 'datetime' | 'multiselect';
  required?: boolean;
  options?: { value: string | number; label: string }[];
  numeric?: boolean;
  createOnly?: boolean;
  /** What the field means, in a line under it (number fields). */
  hint?: string;
}

export interface ColumnSpec<T> {
  label: string;
  cell: (record: T) => ReactNode;
}

export function FieldInput({ form, spec }: { form: UseFormReturn<Values>; spec: FieldSpec }) {
  const common = { form, name: spec.name, label: spec.label, required: spec.required };
  switch (spec.kind) {
    case 'textarea':
      return <TextField {...common} multiline />;
    case 'number':
      return <NumberField {...common} hint={spec.hint} />;
    case 'check':
      return <CheckField {...common} />;
    case 'select':
      return <SelectField {...common} options={spec.options ?? []} numeric={spec.numeric} />;
    case 'datetime':
      return <DateTimeField {...common} />;
    case 'multiselect': {
      const error = form.formState.errors[spec.name]?.message as string | undefined;
      return (
        <label className="field">
          <span>{spec.label}</span>
          <select multiple {...form.register(spec.name)} size={Math.min(5, Math.max(2, spec.options?.length ?? 2))}>
            {spec.options?.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
          {error && <span className="field-error">{error}</span>}
        </label>
      );
    }
    default:
      return <TextField {...common} />;
  }
}

/** Create or edit one record in a dialog; the server's field errors land beside the fields. */
export function RecordDialog({ title, fields, initial, send, onDone, onClose, submitLabel }: {
  title: string;
  fields: FieldSpec[];
  initial: Values;
  send: (values: Values) => ReturnType<Api['request']>;
  onDone: (body: any) => void;
  onClose: () => void;
  submitLabel: string;
}) {
  const { form, formError, submitWith } = useServerForm<Values>({ defaultValues: initial });
  // Only the form's own fields are sent (an edited record also carries id, created...).
  const sendFields = (values: Values) => send(Object.fromEntries(fields.map((f) => [f.name, values[f.name]])));
  return (
    <Dialog title={title} onClose={onClose} wide>
      <form className="form record-form" onSubmit={submitWith(sendFields, onDone)} noValidate>
        <div className="field-grid">
          {fields.map((spec) => (
            <FieldInput key={spec.name} form={form} spec={spec} />
          ))}
        </div>
        <FormFooter error={formError} busy={form.formState.isSubmitting} submitLabel={submitLabel} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

/**
 * A resource of an event as a table with add, edit and delete where the API has them. Forms
 * are drawn from `fields`; `toBody` and `toForm` translate between form values and the API.
 */
export function RecordSection<T extends { id: number }>({ api, path, title, noun, columns, fields, blank, toBody = withoutBlanks, toForm, editable, deletable }: {
  api: Api;
  path: string;
  title: string;
  noun: string;
  columns: ColumnSpec<T>[];
  fields: FieldSpec[];
  blank: Values;
  toBody?: (values: Values, creating: boolean) => unknown;
  toForm?: (record: T) => Values;
  editable?: boolean;
  deletable?: boolean;
}) {
  const { t } = useTranslation('console');
  const { items, error, reload } = useList<T>(api, path);
  const [editing, setEditing] = useState<T | 'new'>();
  const [message, setMessage] = useState<string>();

  const remove = async (record: T) => {
    if (!window.confirm(t('confirmDelete', { noun }))) return;
    const answer = await api.request('DELETE', `${path}/${record.id}`);
    setMessage(answer.status === 204 ? undefined : t('serverAnswered', { status: answer.status }));
    reload();
  };

  const creating = editing === 'new';
  return (
    <section className="console-section" aria-labelledby={`${path}-title`}>
      <header className="section-head">
        <h2 id={`${path}-title`}>{title}</h2>
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          {t('add', { noun })}
        </button>
      </header>
      {error && <p className="error" role="alert">{error}</p>}
      {message && <p className="error" role="alert">{message}</p>}
      {items && items.length === 0 && <p className="muted">{t('none', { noun })}</p>}
      {items && items.length > 0 && (
        <div className="table-wrap">
          <table className="records">
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c.label}>{c.label}</th>
                ))}
                <th aria-label={t('actions')} />
              </tr>
            </thead>
            <tbody>
              {items.map((record) => (
                <tr key={record.id}>
                  {columns.map((c) => (
                    <td key={c.label}>{c.cell(record)}</td>
                  ))}
                  <td>
                    <div className="row-actions">
                      {editable && (
                        <button type="button" onClick={() => setEditing(record)}>
                          {t('edit')}
                        </button>
                      )}
                      {deletable && (
                        <button type="button" className="danger" onClick={() => void remove(record)}>
                          {t('delete')}
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && (
        <RecordDialog
          title={creating ? t('add', { noun }) : t('editNoun', { noun })}
          fields={creating ? fields : fields.filter((f) => !f.createOnly)}
          initial={creating ? blank : { ...blank, ...(toForm ? toForm(editing as T) : editing) }}
          send={(values) => (creating ? api.request('POST', path, toBody(values, true)) : api.request('PUT', `${path}/${(editing as T).id}`, toBody(values, false)))}
          onDone={() => {
            setEditing(undefined);
            reload();
          }}
          onClose={() => setEditing(undefined)}
          submitLabel={creating ? t('create') : t('saveChanges')}
        />
      )}
    </section>
  );
}
