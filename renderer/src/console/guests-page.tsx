import { useCallback, useEffect, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useTranslation } from 'react-i18next';
import type { Api } from '../api';
import type { GUEST_ORDERINGS } from '../../../core/messages';
import { eventDateTime, eventTime } from '../event-clock';
import { Dialog } from '../components/dialog';
import { CheckField, FormFooter, SelectField, TextField, useServerForm, withoutBlanks } from './forms';
import { useList } from './use-list';
import type { CheckinRecord, GuestRecord, QuestionRecord, RegistrationTypeRecord } from './wire';
import { GuestBadgePrints } from './badges-section';

const PAGE_SIZE = 200;
const ROW_HEIGHT = 44;

type Ordering = (typeof GUEST_ORDERINGS)[number];

/** The table's filters and order, each sent as the guest list's own query parameter ('' is "any"). */
interface TableQuery {
  checked_in: '' | 'true' | 'false';
  registration_type: string;
  attention: '' | 'true' | 'false';
  station: string;
  ordering: Ordering;
}

const ANY: TableQuery = { checked_in: '', registration_type: '', attention: '', station: '', ordering: 'id' };

interface GuestPages {
  count: number;
  pages: Map<number, GuestRecord[]>;
}

/**
 * The guest list as one scrolling table of any length: only the rows in view are drawn, and
 * only the pages they fall on are asked for, so 100k guests scroll like 100. Sorting and
 * filtering are the server's (the list's ordering and filter parameters), so they stay as quick.
 */
function useGuestPages(api: Api, eventId: number, search: string, table: TableQuery, version: number) {
  const [state, setState] = useState<GuestPages>({ count: 0, pages: new Map() });
  const asked = useRef(new Set<number>());
  const [error, setError] = useState<string>();

  const loadPage = useCallback(
    (page: number) => {
      if (asked.current.has(page)) return;
      asked.current.add(page);
      const query = new URLSearchParams({ page: String(page), page_size: String(PAGE_SIZE) });
      if (search) query.set('search', search);
      for (const [key, value] of Object.entries(table)) if (value !== '' && !(key === 'ordering' && value === 'id')) query.set(key, value);
      const wanted = asked.current;
      api
        .get<{ count: number; results: GuestRecord[] }>(`/events/${eventId}/guests?${query}`)
        .then((body) =>
          setState((old) => {
            // An answer for a search or filter since replaced is dropped.
            if (wanted !== asked.current) return old;
            const pages = new Map(old.pages);
            pages.set(page, body.results);
            return { count: body.count, pages };
          }),
        )
        .catch((err) => {
          wanted.delete(page);
          setError((err as Error).message);
        });
    },
    [api, eventId, search, table],
  );

  useEffect(() => {
    asked.current = new Set();
    setState({ count: 0, pages: new Map() });
    setError(undefined);
    loadPage(1);
  }, [loadPage, version]);

  return { ...state, error, loadPage };
}

/** A column that sorts: a click sorts by it, a second click the other way round. */
function SortHeader({ label, field, ordering, onSort, className }: { label: string; field: string; ordering: Ordering; onSort: (o: Ordering) => void; className?: string }) {
  const { t } = useTranslation('console');
  const direction = ordering === field ? 'ascending' : ordering === `-${field}` ? 'descending' : 'none';
  const next = (direction === 'ascending' ? `-${field}` : field) as Ordering;
  return (
    <span role="columnheader" aria-sort={direction} className={className}>
      <button type="button" className="sort" onClick={() => onSort(next)} title={t('guests.sortBy', { column: label })}>
        {label}
        <span aria-hidden="true">{direction === 'ascending' ? ' ▲' : direction === 'descending' ? ' ▼' : ''}</span>
      </button>
    </span>
  );
}

export function GuestsPage({ api, eventId, timezone }: { api: Api; eventId: number; timezone: string }) {
  const { t } = useTranslation('console');
  const [typed, setTyped] = useState('');
  const [search, setSearch] = useState('');
  const [table, setTable] = useState<TableQuery>(ANY);
  const [version, setVersion] = useState(0);
  const [open, setOpen] = useState<GuestRecord | 'new'>();
  const { items: types } = useList<RegistrationTypeRecord>(api, `/events/${eventId}/registration_types`);
  const { items: questions } = useList<QuestionRecord>(api, `/events/${eventId}/custom_questions`);
  const stations = useStationNames(api, eventId);
  const { count, pages, error, loadPage } = useGuestPages(api, eventId, search, table, version);
  const scroller = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const timer = setTimeout(() => setSearch(typed.trim()), 250);
    return () => clearTimeout(timer);
  }, [typed]);

  const rows = useVirtualizer({ count, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const visible = rows.getVirtualItems();
  useEffect(() => {
    for (const item of visible) loadPage(Math.floor(item.index / PAGE_SIZE) + 1);
  }, [visible, loadPage]);

  const typeName = (id: number) => types?.find((rt) => rt.id === id)?.name ?? String(id);
  // The door stops for a guest flagged, or for every guest of a type flagged (as the attention filter counts).
  const stopsAtDoor = (guest: GuestRecord) => guest.attention || Boolean(types?.find((rt) => rt.id === guest.registration_type)?.attention);
  const guestAt = (index: number) => pages.get(Math.floor(index / PAGE_SIZE) + 1)?.[index % PAGE_SIZE];
  const changed = () => {
    setOpen(undefined);
    setVersion((v) => v + 1);
  };
  const set = (patch: Partial<TableQuery>) => {
    setTable((old) => ({ ...old, ...patch }));
    scroller.current?.scrollTo({ top: 0 });
  };
  const sort = (ordering: Ordering) => set({ ordering });
  const filtered = Object.entries(table).some(([key, value]) => key !== 'ordering' && value !== '');

  return (
    <section className="console-section guests" aria-labelledby="guests-title">
      <header className="section-head">
        <h2 id="guests-title">{t('tabs.guests')}</h2>
        <input type="search" className="search" aria-label={t('guests.search')} placeholder={t('guests.search')} value={typed} onChange={(e) => setTyped(e.target.value)} />
        <span className="muted" aria-live="polite">
          {t('guests.count', { count })}
        </span>
        <button type="button" className="primary" onClick={() => setOpen('new')} disabled={!types?.length}>
          {t('add', { noun: t('nouns.guest') })}
        </button>
      </header>
      <div className="guest-filters" role="group" aria-label={t('guests.filters')}>
        <label>
          <span>{t('guests.filterIn')}</span>
          <select value={table.checked_in} onChange={(e) => set({ checked_in: e.target.value as TableQuery['checked_in'] })}>
            <option value="">{t('guests.any')}</option>
            <option value="true">{t('guests.onlyIn')}</option>
            <option value="false">{t('guests.notIn')}</option>
          </select>
        </label>
        <label>
          <span>{t('fields.registrationType')}</span>
          <select value={table.registration_type} onChange={(e) => set({ registration_type: e.target.value })}>
            <option value="">{t('guests.any')}</option>
            {types?.map((rt) => (
              <option key={rt.id} value={String(rt.id)}>
                {rt.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>{t('guests.filterAttention')}</span>
          <select value={table.attention} onChange={(e) => set({ attention: e.target.value as TableQuery['attention'] })}>
            <option value="">{t('guests.any')}</option>
            <option value="true">{t('guests.stopped')}</option>
            <option value="false">{t('guests.notStopped')}</option>
          </select>
        </label>
        <label>
          <span>{t('guests.filterStation')}</span>
          <select value={table.station} onChange={(e) => set({ station: e.target.value })}>
            <option value="">{t('guests.any')}</option>
            {stations.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        {filtered && (
          <button type="button" className="link" onClick={() => set({ ...ANY, ordering: table.ordering })}>
            {t('guests.clearFilters')}
          </button>
        )}
      </div>
      {types && types.length === 0 && <p className="notice">{t('guests.needType')}</p>}
      {error && <p className="error" role="alert">{error}</p>}
      <div className="guest-table" role="table" aria-label={t('tabs.guests')} aria-rowcount={count}>
        <div className="guest-tr guest-th" role="row">
          <SortHeader label={t('fields.name')} field="last_name" ordering={table.ordering} onSort={sort} />
          <span role="columnheader" className="wide-only">{t('fields.email')}</span>
          <SortHeader label={t('fields.company')} field="company" ordering={table.ordering} onSort={sort} className="wide-only" />
          <SortHeader label={t('fields.registrationType')} field="registration_type" ordering={table.ordering} onSort={sort} className="wide-only" />
          <SortHeader label={t('guests.statusIn', { zone: timezone })} field="checked_in_at" ordering={table.ordering} onSort={sort} />
        </div>
        <div ref={scroller} className="guest-scroll">
          <div style={{ height: rows.getTotalSize(), position: 'relative' }}>
            {visible.map((item) => {
              const guest = guestAt(item.index);
              return (
                <div
                  key={item.key}
                  role="row"
                  aria-rowindex={item.index + 2}
                  className={guest?.objstatus === '2' ? 'guest-tr inactive' : 'guest-tr'}
                  style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                  onClick={() => guest && setOpen(guest)}
                >
                  {guest ? (
                    <>
                      <span role="cell">
                        <button type="button" className="link" onClick={() => setOpen(guest)}>
                          {stopsAtDoor(guest) && <span title={t('fields.attention')}>★ </span>}
                          {guest.first_name} {guest.last_name}
                        </button>
                      </span>
                      <span role="cell" className="wide-only">{guest.email}</span>
                      <span role="cell" className="wide-only">{guest.company ?? ''}</span>
                      <span role="cell" className="wide-only">{typeName(guest.registration_type)}</span>
                      <span role="cell">{guest.objstatus === '2' ? t('guests.inactive') : guest.checked_in ? t('guests.in', { time: eventTime(guest.checked_in_at, timezone) }) : ''}</span>
                    </>
                  ) : (
                    <span role="cell" className="muted">…</span>
                  )}
                </div>
              );
            })}
          </div>
        </div>
      </div>
      {open && types && questions && (
        <GuestDialog
          api={api}
          eventId={eventId}
          timezone={timezone}
          guest={open === 'new' ? undefined : open}
          types={types}
          questions={questions}
          onChanged={changed}
          onScansChanged={() => setVersion((v) => v + 1)}
          onClose={() => setOpen(undefined)}
        />
      )}
    </section>
  );
}

/** The stations that have scanned at this event (the stats' list), for the station filter. */
function useStationNames(api: Api, eventId: number): string[] {
  const [names, setNames] = useState<string[]>([]);
  useEffect(() => {
    let live = true;
    api
      .get<{ stations: { station: string | null }[] }>(`/events/${eventId}/stats`)
      .then((stats) => live && setNames(stats.stations.map((s) => s.station).filter((name): name is string => name !== null)))
      .catch(() => live && setNames([]));
    return () => {
      live = false;
    };
  }, [api, eventId]);
  return names;
}

const GUEST_FIELDS = ['first_name', 'last_name', 'email', 'company', 'job_title', 'prefix', 'suffix', 'phone', 'cell_phone', 'work_phone', 'website', 'blog', 'barcode', 'nfc_tag'] as const;

type GuestForm = Record<string, any>;

function formOf(guest: GuestRecord | undefined, types: RegistrationTypeRecord[], questions: QuestionRecord[]): GuestForm {
  const values: GuestForm = { registration_type: guest?.registration_type ?? types[0]?.id, attention: guest?.attention ?? false, notes: guest?.notes ?? '' };
  for (const f of GUEST_FIELDS) values[f] = guest?.[f] ?? '';
  for (const q of questions) {
    const answer = guest?.custom_questions.find((a) => a.question_id === q.id)?.answer ?? [];
    values[`q${q.id}`] = q.type === 'text' ? (answer[0]?.answer ?? '') : q.type === 'checkbox' ? answer.map((a) => String(a.id)) : (answer[0]?.id ?? '');
  }
  return values;
}

/** The API's answer list from the form: a text, one choice id, or a list of them (spec "Guest"). */
function bodyOf(values: GuestForm, questions: QuestionRecord[]) {
  const fields: GuestForm = { registration_type: values.registration_type };
  for (const f of GUEST_FIELDS) fields[f] = values[f];
  const custom_questions = questions.flatMap((q): { question_id: number; answer: string | number | number[] }[] => {
    const value = values[`q${q.id}`];
    if (q.type === 'text') return value ? [{ question_id: q.id, answer: String(value) }] : [];
    if (q.type === 'checkbox') {
      const ids = (Array.isArray(value) ? value : value ? [value] : []).map(Number);
      return ids.length ? [{ question_id: q.id, answer: ids }] : [];
    }
    return value ? [{ question_id: q.id, answer: Number(value) }] : [];
  });
  // Last name and e-mail are required but may be blank (spec "Guest"): always sent as typed.
  // Attention and notes always go as they stand, so unticking or emptying clears them.
  const door = { attention: Boolean(values.attention), notes: values.notes ?? '' };
  const body = { ...withoutBlanks(fields), first_name: fields.first_name, last_name: fields.last_name, email: fields.email, ...door };
  return { ...body, custom_questions };
}

function GuestDialog({ api, eventId, timezone, guest, types, questions, onChanged, onScansChanged, onClose }: {
  api: Api;
  eventId: number;
  timezone: string;
  guest?: GuestRecord;
  types: RegistrationTypeRecord[];
  questions: QuestionRecord[];
  onChanged: () => void;
  onScansChanged: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation('console');
  const creating = !guest;
  const { form, formError, submitWith } = useServerForm<GuestForm>({ defaultValues: formOf(guest, types, questions) });
  const submit = submitWith(
    (values) => (creating ? api.request('POST', `/events/${eventId}/guests`, bodyOf(values, questions)) : api.request('PUT', `/events/${eventId}/guests/${guest.id}`, bodyOf(values, questions))),
    onChanged,
  );
  const active = guest?.objstatus !== '2';
  const setActive = async (objstatus: 1 | 2) => {
    if (!guest) return;
    await api.request('PUT', `/events/${eventId}/guests/${guest.id}`, { objstatus });
    onChanged();
  };
  const label = (f: string) => t(`fields.${f === 'first_name' ? 'firstName' : f === 'last_name' ? 'lastName' : f === 'cell_phone' ? 'cellPhone' : f === 'work_phone' ? 'workPhone' : f === 'job_title' ? 'jobTitle' : f === 'nfc_tag' ? 'nfcTag' : f}`);

  return (
    <Dialog title={creating ? t('add', { noun: t('nouns.guest') }) : `${guest.first_name} ${guest.last_name}`} onClose={onClose} wide>
      <form className="form record-form" onSubmit={submit} noValidate>
        <div className="field-grid">
          <SelectField form={form} name="registration_type" label={t('fields.registrationType')} required numeric options={types.map((rt) => ({ value: rt.id, label: rt.name }))} />
          {GUEST_FIELDS.map((f) => (
            <TextField key={f} form={form} name={f} label={label(f)} required={f === 'first_name' || f === 'last_name' || f === 'email'} type={f === 'email' ? 'email' : 'text'} />
          ))}
        </div>
        <fieldset className="answers door-fields">
          <CheckField form={form} name="attention" label={t('fields.attention')} />
          <TextField form={form} name="notes" label={t('fields.notes')} multiline />
        </fieldset>
        {questions.length > 0 && (
          <fieldset className="answers">
            <legend>{t('guests.answers')}</legend>
            {questions.map((q) => (
              <QuestionInput key={q.id} form={form} question={q} />
            ))}
          </fieldset>
        )}
        <FormFooter error={formError} busy={form.formState.isSubmitting} submitLabel={creating ? t('create') : t('saveChanges')} onCancel={onClose}>
          {guest && (
            <button type="button" className={active ? 'danger' : undefined} onClick={() => void setActive(active ? 2 : 1)}>
              {active ? t('guests.deactivate') : t('guests.reactivate')}
            </button>
          )}
        </FormFooter>
      </form>
      {guest && <CheckinHistory api={api} eventId={eventId} timezone={timezone} guestId={guest.id} onChanged={onScansChanged} />}
      {guest && <GuestBadgePrints api={api} eventId={eventId} guestId={guest.id} timezone={timezone} />}
    </Dialog>
  );
}

function QuestionInput({ form, question }: { form: ReturnType<typeof useServerForm<GuestForm>>['form']; question: QuestionRecord }) {
  const { t } = useTranslation('console');
  const name = `q${question.id}`;
  if (question.type === 'text') return <TextField form={form} name={name} label={question.question} />;
  if (question.type === 'checkbox')
    return (
      <fieldset className="field choices">
        <legend>{question.question}</legend>
        {question.choices.map((c) => (
          <label key={c.id} className="check">
            <input type="checkbox" value={String(c.id)} {...form.register(name)} /> {c.answer}
          </label>
        ))}
      </fieldset>
    );
  return <SelectField form={form} name={name} label={question.question} options={[{ value: '', label: t('noAnswer') }, ...question.choices.map((c) => ({ value: String(c.id), label: c.answer }))]} />;
}

/** Every scan of the guest, undone ones too, with undo for a mistaken one. */
function CheckinHistory({ api, eventId, timezone, guestId, onChanged }: { api: Api; eventId: number; timezone: string; guestId: number; onChanged: () => void }) {
  const { t } = useTranslation('console');
  const { items, error, reload } = useList<CheckinRecord>(api, `/events/${eventId}/checkins?guest_id=${guestId}&include_undone=true`);
  const undo = async (checkin: CheckinRecord) => {
    await api.request('DELETE', `/events/${eventId}/checkins/${checkin.id}`);
    reload();
    onChanged();
  };
  return (
    <section className="history" aria-labelledby="history-title">
      <h3 id="history-title">{t('guests.history')}</h3>
      {error && <p className="error">{error}</p>}
      {items?.length === 0 && <p className="muted">{t('guests.noScans')}</p>}
      <ul className="history-list">
        {items?.map((c) => (
          <li key={c.id} className={c.undone_at ? 'undone' : undefined}>
            <span>{c.direction === 'in' ? t('guests.checkedIn') : t('guests.checkedOut')}</span>
            <span>{eventDateTime(c.scanned_at, timezone)}</span>
            <span className="muted">{c.station ?? ''}</span>
            {c.undone_at ? (
              <span className="muted">{t('guests.undone', { time: eventDateTime(c.undone_at, timezone) })}</span>
            ) : (
              <button type="button" onClick={() => void undo(c)}>
                {t('guests.undo')}
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
