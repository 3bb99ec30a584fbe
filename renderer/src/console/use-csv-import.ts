import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { detailOf, type Api } from '../api';
import { AUTO, buildCsv, headerCsv, parseCsvFile, type Parsed } from './csv-file';
import { uploadWithProgress } from './transfer';
import type { CsvImportResult } from './wire';

export interface RowError {
  row: number;
  errors: Record<string, string[]>;
}

/** What the last upload came to. */
export type Outcome =
  | { kind: 'checked'; result: CsvImportResult; sent: string }
  | { kind: 'bad-rows'; rows: RowError[]; total: number; detail?: string }
  | { kind: 'imported'; created: number }
  | { kind: 'refused'; message: string };

/** What the server makes of each header by its name alone (a dry run of the header row). */
export interface Recognised {
  columns: Record<string, string>;
  readOnly: Set<string>;
}

const CSV_TYPE = 'text/csv; charset=utf-8';
const separatorKey = (eventId: number) => `doorlist.csvSeparator.${eventId}`;

/**
 * A CSV import's state: the file picked, how each column is mapped, what the server made of
 * the headers, and the outcome of the last dry run or import.
 */
export function useCsvImport(api: Api, eventId: number) {
  const { t } = useTranslation('console');
  const [parsed, setParsed] = useState<Parsed>();
  const [mapping, setMapping] = useState<string[]>([]);
  const [recognised, setRecognised] = useState<Recognised>();
  const [outcome, setOutcome] = useState<Outcome>();
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState(0);
  // The separator of the file last imported into this event, unless the organiser picks another.
  const [separator, setSeparator] = useState(() => localStorage.getItem(separatorKey(eventId)) ?? ',');
  const url = (dryRun: boolean) => `/events/${eventId}/guests.csv${dryRun ? '?dry_run=true' : ''}`;

  const pick = async (file: File | undefined) => {
    setOutcome(undefined);
    if (!file) return setParsed(undefined);
    const text = await file.text();
    try {
      const picked = parseCsvFile(file.name, text);
      setParsed(picked);
      setMapping(picked.headers.map(() => AUTO));
      setRecognised(undefined);
      const answer = await uploadWithProgress(api, url(true), headerCsv(picked), CSV_TYPE, () => undefined);
      if (answer.status === 200) setRecognised({ columns: answer.body.columns, readOnly: new Set(answer.body.read_only_columns) });
    } catch (err) {
      setParsed(undefined);
      setOutcome({ kind: 'refused', message: (err as Error).message });
    }
  };

  /** Sends the file as mapped (without `skipRows`): a dry run, or the import itself. */
  const send = async (dryRun: boolean, skipRows = new Set<number>()) => {
    if (!parsed) return;
    setBusy(true);
    setProgress(0);
    try {
      const csv = buildCsv(parsed, mapping, skipRows);
      const answer = await uploadWithProgress(api, url(dryRun), csv, CSV_TYPE, setProgress);
      const next = outcomeOf(answer, dryRun, csv, t('serverAnswered', { status: answer.status }));
      setOutcome(next);
      if (next.kind === 'imported') {
        localStorage.setItem(separatorKey(eventId), parsed.delimiter);
        setSeparator(parsed.delimiter);
      }
    } catch (err) {
      setOutcome({ kind: 'refused', message: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };

  const mapColumn = (column: number, target: string) => {
    setOutcome(undefined);
    setMapping(mapping.map((m, i) => (i === column ? target : m)));
  };

  return { parsed, mapping, recognised, outcome, busy, progress, separator, setSeparator, pick, send, mapColumn };
}

/** An upload's answer as the screen shows it; `otherwise` says what an unexpected status was. */
function outcomeOf(answer: { status: number; body: any }, dryRun: boolean, sent: string, otherwise: string): Outcome {
  if (answer.status === 200 || answer.status === 201) {
    const result = answer.body as CsvImportResult;
    return dryRun ? { kind: 'checked', result, sent } : { kind: 'imported', created: result.created };
  }
  if (answer.status === 400 && Array.isArray(answer.body?.rows)) {
    // The server lists the first bad rows and counts the rest (`more_rows`); `detail` says
    // when it stopped reading early.
    const rows = answer.body.rows as RowError[];
    return { kind: 'bad-rows', rows, total: rows.length + (Number(answer.body.more_rows) || 0), detail: answer.body.detail };
  }
  return { kind: 'refused', message: detailOf(answer.body) ?? otherwise };
}
