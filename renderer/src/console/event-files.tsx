import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { detailOf, type Api } from '../api';
import { downloadEventFile } from '../event-files';
import { uploadWithProgress } from './transfer';
import { navigate } from './route';

interface ImportResult {
  event_id: number;
  event_created: boolean;
  created: Record<string, number>;
  updated: Record<string, number>;
  checkins_added: number;
  conflicts: unknown[];
  double_admissions: { name: string }[];
}

const sum = (counts: Record<string, number> | undefined) => Object.values(counts ?? {}).reduce((a, b) => a + b, 0);

export function EventFileExport({ api, eventId, eventName }: { api: Api; eventId: number; eventName: string }) {
  const { t } = useTranslation('console');
  const [state, setState] = useState<{ busy?: boolean; done?: string; error?: string }>({});
  const run = async () => {
    setState({ busy: true });
    try {
      setState({ done: (await downloadEventFile(api, eventId, eventName)).name });
    } catch (err) {
      setState({ error: (err as Error).message });
    }
  };
  return (
    <section className="console-section" aria-labelledby="export-title">
      <h2 id="export-title">{t('files.exportTitle')}</h2>
      <p className="muted">{t('files.exportIntro')}</p>
      <div className="form-buttons">
        <button type="button" className="primary" disabled={state.busy} onClick={() => void run()}>
          {t('files.export')}
        </button>
      </div>
      {state.busy && <progress aria-label={t('files.exporting')} />}
      {state.done && <p className="notice" role="status">{t('files.exported', { name: state.done })}</p>}
      {state.error && <p className="error" role="alert">{state.error}</p>}
    </section>
  );
}

/**
 * An event file from another laptop: a new event arrives in the group the file names (created
 * here if missing), a known one is merged. Progress while it uploads, then what changed.
 */
export function EventFileImport({ api, onImported }: { api: Api; onImported: () => void }) {
  const { t } = useTranslation('console');
  const [file, setFile] = useState<File>();
  const [progress, setProgress] = useState<number>();
  const [result, setResult] = useState<ImportResult>();
  const [error, setError] = useState<string>();

  const run = async () => {
    if (!file) return;
    setResult(undefined);
    setError(undefined);
    setProgress(0);
    try {
      const answer = await uploadWithProgress(api, '/events/import', file, 'application/octet-stream', setProgress);
      if (answer.status === 200 || answer.status === 201) {
        setResult(answer.body as ImportResult);
        onImported();
      }
      else setError(detailOf(answer.body) ?? t('serverAnswered', { status: answer.status }));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setProgress(undefined);
    }
  };

  return (
    <section className="console-section" aria-labelledby="import-title">
      <h2 id="import-title">{t('files.importTitle')}</h2>
      <p className="muted">{t('files.importIntro')}</p>
      <label className="field">
        <span>{t('files.file')}</span>
        <input type="file" accept=".doorlist,application/gzip,application/octet-stream" onChange={(e) => setFile(e.target.files?.[0])} />
      </label>
      <div className="form-buttons">
        <button type="button" className="primary" disabled={!file || progress !== undefined} onClick={() => void run()}>
          {t('files.import')}
        </button>
      </div>
      {progress !== undefined && (
        <p>
          <progress value={progress} max={1} aria-label={t('files.importing')} /> {progress < 1 ? `${Math.round(progress * 100)} %` : t('files.merging')}
        </p>
      )}
      {error && <p className="error" role="alert">{error}</p>}
      {result && (
        <div className="result-box" role="status">
          <p>
            <strong>{result.event_created ? t('files.created') : t('files.merged')}</strong>
          </p>
          <ul>
            <li>{t('files.added', { count: sum(result.created), guests: result.created.guests ?? 0 })}</li>
            <li>{t('files.updated', { count: sum(result.updated), guests: result.updated.guests ?? 0 })}</li>
            <li>{t('files.checkinsAdded', { count: result.checkins_added })}</li>
            <li>{t('files.conflicts', { count: result.conflicts.length })}</li>
            <li>{t('files.doubleAdmissions', { count: result.double_admissions.length })}</li>
            {result.double_admissions.map((d, i) => (
              <li key={i} className="muted">
                {d.name}
              </li>
            ))}
          </ul>
          <button type="button" onClick={() => navigate(`/console/events/${result.event_id}`)}>
            {t('files.open')}
          </button>
        </div>
      )}
    </section>
  );
}
