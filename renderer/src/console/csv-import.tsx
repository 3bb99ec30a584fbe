import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { downloadFrom, type Api } from '../api';
import { AUTO, IGNORE, TARGETS, fileColumnOf, filledRows, type Parsed } from './csv-file';
import { useCsvImport, type Outcome, type Recognised } from './use-csv-import';
import { useList } from './use-list';
import type { QuestionRecord } from './wire';

const SEPARATOR_NAMES: Record<string, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab' };

/**
 * CSV guest import: pick a file, see and change which column fills which field, a dry run lists
 * every bad row with the server's message, then import (all rows, or the good ones).
 */
export function CsvImport({ api, eventId, eventName }: { api: Api; eventId: number; eventName: string }) {
  const { t } = useTranslation('console');
  const { items: questions } = useList<QuestionRecord>(api, `/events/${eventId}/custom_questions`);
  const csv = useCsvImport(api, eventId);
  const { parsed, mapping, outcome, busy } = csv;
  const columnOf = parsed ? fileColumnOf(parsed, mapping) : (sent: string) => sent;
  const targetLabel = useTargetLabel(questions);

  return (
    <section className="console-section" aria-labelledby="csv-title">
      <CsvExport api={api} eventId={eventId} eventName={eventName} separator={csv.separator} onSeparator={csv.setSeparator} />
      <p className="muted">{t('csv.intro')}</p>
      <label className="field">
        <span>{t('csv.file')}</span>
        <input type="file" accept=".csv,.txt,text/csv" onChange={(e) => void csv.pick(e.target.files?.[0])} />
      </label>

      {parsed && (
        <>
          <h3>{t('csv.mapping', { rows: filledRows(parsed) })}</h3>
          <ColumnMapping parsed={parsed} mapping={mapping} recognised={csv.recognised} questions={questions} targetLabel={targetLabel} onMap={csv.mapColumn} />
          <div className="form-buttons">
            <button type="button" className="primary" disabled={busy} onClick={() => void csv.send(true)}>
              {t('csv.check')}
            </button>
          </div>
        </>
      )}

      {busy && <progress value={csv.progress} max={1} aria-label={t('csv.sending')} />}

      {outcome?.kind === 'checked' && (
        <div className="result-box" role="status">
          <p>{t('csv.ready', { count: outcome.result.would_create })}</p>
          <CheckedColumns outcome={outcome} leftOut={parsed?.headers.filter((_, i) => mapping[i] === IGNORE) ?? []} columnOf={columnOf} targetLabel={targetLabel} />
          <button type="button" className="primary" disabled={busy} onClick={() => void csv.send(false)}>
            {t('csv.import', { count: outcome.result.would_create })}
          </button>
        </div>
      )}

      {outcome?.kind === 'bad-rows' && (
        <div className="result-box" role="status">
          <BadRows outcome={outcome} columnOf={columnOf} />
          {outcome.total > outcome.rows.length || outcome.detail ? (
            <p>{t('csv.tooManyBad', { shown: outcome.rows.length })}</p>
          ) : (
            <button type="button" className="primary" disabled={busy} onClick={() => void csv.send(false, new Set(outcome.rows.map((r) => r.row)))}>
              {t('csv.importRest', { count: (parsed ? filledRows(parsed) : 0) - outcome.rows.length })}
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

/** The section's title with the export button, and the separator the export writes. */
function CsvExport({ api, eventId, eventName, separator, onSeparator }: { api: Api; eventId: number; eventName: string; separator: string; onSeparator: (separator: string) => void }) {
  const { t } = useTranslation('console');
  const [exportError, setExportError] = useState<string>();
  const download = () => {
    setExportError(undefined);
    downloadFrom(api, `/events/${eventId}/guests.csv?separator=${SEPARATOR_NAMES[separator] ?? 'comma'}`, `${eventName}-guests.csv`).catch((err) => setExportError((err as Error).message));
  };
  return (
    <>
      <header className="section-head">
        <h2 id="csv-title">{t('csv.title')}</h2>
        <button type="button" onClick={download}>
          {t('csv.export')}
        </button>
      </header>
      <label className="field inline-field">
        <span>{t('csv.separator')}</span>
        <select value={separator} onChange={(e) => onSeparator(e.target.value)}>
          {Object.entries(SEPARATOR_NAMES).map(([char, name]) => (
            <option key={name} value={char}>
              {t(`csv.separators.${name}`)}
            </option>
          ))}
        </select>
      </label>
      {exportError && <p className="error" role="alert">{exportError}</p>}
    </>
  );
}

/** A field's or question's name as the organiser reads it: `question 7` is the question's text. */
function useTargetLabel(questions: QuestionRecord[] | undefined): (target: string) => string {
  const { t } = useTranslation('console');
  return (target) => {
    if (!target.startsWith('question ')) return t(`csv.targets.${target}`);
    const id = target.slice('question '.length);
    return t('csv.answerTo', { question: questions?.find((q) => q.id === Number(id))?.question ?? id });
  };
}

interface MappingProps {
  parsed: Parsed;
  mapping: string[];
  recognised?: Recognised;
  questions?: QuestionRecord[];
  targetLabel: (target: string) => string;
  onMap: (column: number, target: string) => void;
}

/** One line per column of the file: an example cell, what it fills, and what it becomes. */
function ColumnMapping({ parsed, mapping, recognised, questions, targetLabel, onMap }: MappingProps) {
  const { t } = useTranslation('console');
  /** What a column becomes, said for every column: a field, an answer, kept by Doorlist, or left out. */
  const becomes = (header: string, chosen: string): string => {
    if (chosen === IGNORE) return t('csv.leftOut');
    if (chosen !== AUTO) return TARGETS.includes(chosen as (typeof TARGETS)[number]) ? targetLabel(chosen) : t('csv.answerTo', { question: chosen });
    if (!recognised) return t('csv.recognising');
    const target = recognised.columns[header];
    if (target) return targetLabel(target);
    return recognised.readOnly.has(header) ? t('csv.keptByDoorlist') : t('csv.notRecognised');
  };
  return (
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
                <select aria-label={t('csv.fillsFor', { column: header })} value={mapping[i]} onChange={(e) => onMap(i, e.target.value)}>
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
  );
}

/** After a dry run: which column went where, and which were kept by Doorlist or left out. */
function CheckedColumns({ outcome, leftOut, columnOf, targetLabel }: { outcome: Extract<Outcome, { kind: 'checked' }>; leftOut: string[]; columnOf: (sent: string) => string; targetLabel: (target: string) => string }) {
  const { t } = useTranslation('console');
  return (
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
      {leftOut.map((column) => (
        <li key={`left-${column}`} className="muted">
          {t('csv.ignored', { column })}
        </li>
      ))}
    </ul>
  );
}

/** The rows the server refused, each with its messages under the file's own column names. */
function BadRows({ outcome, columnOf }: { outcome: Extract<Outcome, { kind: 'bad-rows' }>; columnOf: (sent: string) => string }) {
  const { t } = useTranslation('console');
  return (
    <>
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
    </>
  );
}
