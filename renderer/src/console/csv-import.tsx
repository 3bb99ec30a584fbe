import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { parse } from 'csv-parse/browser/esm/sync';
import { stringify } from 'csv-stringify/browser/esm/sync';
import { detailOf, downloadFrom, type Api } from '../api';
import { uploadWithProgress } from './transfer';
import { useList } from './use-list';
import type { CsvImportResult, QuestionRecord } from './wire';

/** Guest fields a column can fill: the names the server's CSV import reads. */
const TARGETS = ['first_name', 'last_name', 'email', 'registration_type', 'company', 'job_title', 'prefix', 'suffix', 'phone', 'cell_phone', 'work_phone', 'website', 'blog', 'barcode', 'nfc_tag', 'attention', 'notes'] as const;
const SEPARATOR_NAMES: Record<string, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab' };
const separatorKey = (eventId: number) => `doorlist.csvSeparator.${eventId}`;
const AUTO = '';
const IGNORE = '-';

interface Parsed {
  name: string;
  headers: string[];
  delimiter: string;
  /** Data records; records[i] is the spreadsheet's row i + 2 (row 1 is the header). */
  records: string[][];
}

interface RowError {
  row: number;
  errors: Record<string, string[]>;
}

type Outcome =
  | { kind: 'checked'; result: CsvImportResult; sent: string }
  | { kind: 'bad-rows'; rows: RowError[]; total: number; detail?: string }
  | { kind: 'imported'; created: number }
  | { kind: 'refused'; message: string };

/** The separator a spreadsheet used: the header line's most frequent of , ; and tab. */
function delimiterOf(text: string): string {
  const header = text.split(/\r?\n/, 1)[0] ?? '';
  const counts = [',', ';', '\t'].map((d) => [d, header.split(d).length - 1] as const).sort((a, b) => b[1] - a[1]);
  return counts[0][1] > 0 ? counts[0][0] : ',';
}

/** The headers as sent: a column mapped by hand goes under its target's name. */
function sentHeaders(parsed: Parsed, mapping: string[]): { keep: number[]; header: string[] } {
  const keep = mapping.map((m, i) => (m === IGNORE ? -1 : i)).filter((i) => i >= 0);
  return { keep, header: keep.map((i) => (mapping[i] === AUTO ? parsed.headers[i] : mapping[i])) };
}

/** The file as the server will get it: columns renamed as mapped, ignored ones left out, bad rows dropped. */
function buildCsv(parsed: Parsed, mapping: string[], skipRows: Set<number>): string {
  const { keep, header } = sentHeaders(parsed, mapping);
  const rows = parsed.records.filter((_, i) => !skipRows.has(i + 2)).map((record) => keep.map((i) => record[i] ?? ''));
  return stringify([header, ...rows]);
}

/** The server's errors name the columns as sent: back to the file's own headers. */
function fileColumnOf(parsed: Parsed, mapping: string[]): (sent: string) => string {
  const { keep, header } = sentHeaders(parsed, mapping);
  const names = new Map(keep.map((i, k) => [header[k], parsed.headers[i]]));
  return (sent) => names.get(sent) ?? sent;
}

/** What the server makes of each header by its name alone (a dry run of the header row). */
interface Recognised {
  columns: Record<string, string>;
  readOnly: Set<string>;
}

/**
 * CSV guest import: pick a file, see and change which column fills which field, a dry run lists
 * every bad row with the server's message, then import (all rows, or the good ones).
 */
export function CsvImport({ api, eventId, eventName }: { api: Api; eventId: number; eventName: string }) {
  const { t } = useTranslation('console');
  const { items: questions } = useList<QuestionRecord>(api, `/events/${eventId}/custom_questions`);
  const [parsed, setParsed] = useState<Parsed>();
  const [mapping, setMapping] = useState<string[]>([]);
  const [outcome, setOutcome] = useState<Outcome>();
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState(0);
  const [exportError, setExportError] = useState<string>();
  const [recognised, setRecognised] = useState<Recognised>();
  // The separator of the file last imported into this event, unless the organiser picks another.
  const [separator, setSeparator] = useState(() => localStorage.getItem(separatorKey(eventId)) ?? ',');

  const pick = async (file: File | undefined) => {
    setOutcome(undefined);
    if (!file) return setParsed(undefined);
    const text = await file.text();
    try {
      const rows = parse(text, { bom: true, relax_column_count: true, delimiter: delimiterOf(text) }) as string[][];
      const [headers = [], ...records] = rows;
      const trimmed = headers.map((h) => h.trim());
      setParsed({ name: file.name, headers: trimmed, records, delimiter: delimiterOf(text) });
      setMapping(headers.map(() => AUTO));
      setRecognised(undefined);
      const answer = await uploadWithProgress(api, `/events/${eventId}/guests.csv?dry_run=true`, stringify([trimmed]), 'text/csv; charset=utf-8', () => undefined);
      if (answer.status === 200) setRecognised({ columns: answer.body.columns, readOnly: new Set(answer.body.read_only_columns) });
    } catch (err) {
      setParsed(undefined);
      setOutcome({ kind: 'refused', message: (err as Error).message });
    }
  };

  const send = async (dryRun: boolean, skipRows = new Set<number>()) => {
    if (!parsed) return;
    setBusy(true);
    setProgress(0);
    try {
      const csv = buildCsv(parsed, mapping, skipRows);
      const answer = await uploadWithProgress(api, `/events/${eventId}/guests.csv${dryRun ? '?dry_run=true' : ''}`, csv, 'text/csv; charset=utf-8', setProgress);
      if (answer.status === 200 || answer.status === 201) {
        const result = answer.body as CsvImportResult;
        setOutcome(dryRun ? { kind: 'checked', result, sent: csv } : { kind: 'imported', created: result.created });
        if (!dryRun) {
          localStorage.setItem(separatorKey(eventId), parsed.delimiter);
          setSeparator(parsed.delimiter);
        }
      } else if (answer.status === 400 && Array.isArray(answer.body?.rows)) {
        // The server lists the first bad rows and counts the rest (`more_rows`); `detail` says
        // when it stopped reading early.
        const rows = answer.body.rows as RowError[];
        setOutcome({ kind: 'bad-rows', rows, total: rows.length + (Number(answer.body.more_rows) || 0), detail: answer.body.detail });
      } else {
        setOutcome({ kind: 'refused', message: detailOf(answer.body) ?? t('serverAnswered', { status: answer.status }) });
      }
    } catch (err) {
      setOutcome({ kind: 'refused', message: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };

  const nonEmpty = parsed ? parsed.records.filter((r) => r.some((cell) => cell.trim() !== '')).length : 0;
  const targetLabel = (target: string) => (target.startsWith('question ') ? t('csv.answerTo', { question: questions?.find((q) => q.id === Number(target.slice(9)))?.question ?? target.slice(9) }) : t(`csv.targets.${target}`));
  /** What a column becomes, said for every column: a field, an answer, kept by Doorlist, or left out. */
  const becomes = (header: string, chosen: string): string => {
    if (chosen === IGNORE) return t('csv.leftOut');
    if (chosen !== AUTO) return TARGETS.includes(chosen as (typeof TARGETS)[number]) ? targetLabel(chosen) : t('csv.answerTo', { question: chosen });
    if (!recognised) return t('csv.recognising');
    const target = recognised.columns[header];
    if (target) return targetLabel(target);
    return recognised.readOnly.has(header) ? t('csv.keptByDoorlist') : t('csv.notRecognised');
  };
  const columnOf = parsed ? fileColumnOf(parsed, mapping) : (sent: string) => sent;

  return (
    <section className="console-section" aria-labelledby="csv-title">
      <header className="section-head">
        <h2 id="csv-title">{t('csv.title')}</h2>
        <button
          type="button"
          onClick={() => {
            setExportError(undefined);
            downloadFrom(api, `/events/${eventId}/guests.csv?separator=${SEPARATOR_NAMES[separator] ?? 'comma'}`, `${eventName}-guests.csv`).catch((err) => setExportError((err as Error).message));
          }}
        >
          {t('csv.export')}
        </button>
      </header>
      <label className="field inline-field">
        <span>{t('csv.separator')}</span>
        <select value={separator} onChange={(e) => setSeparator(e.target.value)}>
          {Object.entries(SEPARATOR_NAMES).map(([char, name]) => (
            <option key={name} value={char}>
              {t(`csv.separators.${name}`)}
            </option>
          ))}
        </select>
      </label>
      {exportError && <p className="error" role="alert">{exportError}</p>}
      <p className="muted">{t('csv.intro')}</p>
      <label className="field">
        <span>{t('csv.file')}</span>
        <input type="file" accept=".csv,.txt,text/csv" onChange={(e) => void pick(e.target.files?.[0])} />
      </label>

      {parsed && (
        <>
          <h3>{t('csv.mapping', { rows: nonEmpty })}</h3>
          <div className="table-wrap">
            <table className="records mapping">
              <thead>
                <tr>
                  <th>{t('csv.column')}</th>
                  <th className="wide-only">{t('csv.example')}</th>
                  <th>{t('csv.fills')}</th>
                  <th>{t('csv.becomes')}</th>
                </tr>
              </thead>
              <tbody>
                {parsed.headers.map((header, i) => (
                  <tr key={i}>
                    <td>{header}</td>
                    <td className="muted wide-only">{parsed.records[0]?.[i] ?? ''}</td>
                    <td>
                      <select
                        aria-label={t('csv.fillsFor', { column: header })}
                        value={mapping[i]}
                        onChange={(e) => {
                          setOutcome(undefined);
                          setMapping(mapping.map((m, j) => (j === i ? e.target.value : m)));
                        }}
                      >
                        <option value={AUTO}>{t('csv.auto')}</option>
                        {TARGETS.map((target) => (
                          <option key={target} value={target}>
                            {targetLabel(target)}
                          </option>
                        ))}
                        {questions?.map((q) => (
                          <option key={q.id} value={q.question}>
                            {t('csv.answerTo', { question: q.question })}
                          </option>
                        ))}
                        <option value={IGNORE}>{t('csv.ignore')}</option>
                      </select>
                    </td>
                    <td data-becomes={header}>{becomes(header, mapping[i])}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="form-buttons">
            <button type="button" className="primary" disabled={busy} onClick={() => void send(true)}>
              {t('csv.check')}
            </button>
          </div>
        </>
      )}

      {busy && <progress value={progress} max={1} aria-label={t('csv.sending')} />}

      {outcome?.kind === 'checked' && (
        <div className="result-box" role="status">
          <p>{t('csv.ready', { count: outcome.result.would_create })}</p>
          <ul className="mapping-result">
            {Object.entries(outcome.result.columns).map(([column, target]) => (
              <li key={column}>
                {columnOf(column)} → {targetLabel(target)}
              </li>
            ))}
            {outcome.result.read_only_columns.map((column) => (
              <li key={column} className="muted">
                {t('csv.keptColumn', { column })}
              </li>
            ))}
            {outcome.result.ignored_columns.map((column) => (
              <li key={column} className="muted">
                {t('csv.ignored', { column })}
              </li>
            ))}
            {parsed?.headers.filter((_, i) => mapping[i] === IGNORE).map((column) => (
              <li key={`left-${column}`} className="muted">
                {t('csv.ignored', { column })}
              </li>
            ))}
          </ul>
          <button type="button" className="primary" disabled={busy} onClick={() => void send(false)}>
            {t('csv.import', { count: outcome.result.would_create })}
          </button>
        </div>
      )}

      {outcome?.kind === 'bad-rows' && (
        <div className="result-box" role="status">
          <p className="error">{t('csv.badRows', { count: outcome.total })}</p>
          {outcome.detail && <p className="error">{outcome.detail}</p>}
          <div className="table-wrap bad-rows">
            <table className="records">
              <thead>
                <tr>
                  <th>{t('csv.row')}</th>
                  <th>{t('csv.problem')}</th>
                </tr>
              </thead>
              <tbody>
                {outcome.rows.map((r) => (
                  <tr key={r.row}>
                    <td>{r.row}</td>
                    <td>
                      {Object.entries(r.errors).map(([field, messages]) => (
                        <div key={field}>
                          <strong>{columnOf(field)}</strong>: {messages.join(' ')}
                        </div>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {outcome.total > outcome.rows.length || outcome.detail ? (
            <p>{t('csv.tooManyBad', { shown: outcome.rows.length })}</p>
          ) : (
            <button type="button" className="primary" disabled={busy} onClick={() => void send(false, new Set(outcome.rows.map((r) => r.row)))}>
              {t('csv.importRest', { count: nonEmpty - outcome.rows.length })}
            </button>
          )}
        </div>
      )}

      {outcome?.kind === 'imported' && (
        <p className="notice" role="status">
          {t('csv.imported', { count: outcome.created })}
        </p>
      )}
      {outcome?.kind === 'refused' && (
        <p className="error" role="alert">
          {outcome.message}
        </p>
      )}
    </section>
  );
}
