import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { detailOf, listAll, OfflineError, type Api } from '../api';
import { desktop } from '../desktop';
import { downloadEventFile, importSummary, uploadEventFile, type ImportReport } from '../event-files';
import { Dialog } from './dialog';

type Props = { api: Api; onClose: (importedEventId?: number) => void } & ({ mode: 'export'; eventId: number; eventName: string } | { mode: 'import' });

/**
 * Export or import an event file. The desktop app uses its own file dialogs (through the
 * preload); a browser downloads and uploads.
 */
export function EventFilePanel(props: Props) {
  const { api, onClose } = props;
  const { t } = useTranslation('door');
  const [busy, setBusy] = useState(false);
  const [lines, setLines] = useState<string[]>();
  const [error, setError] = useState<string>();
  const [importedId, setImportedId] = useState<number>();
  const fileInput = useRef<HTMLInputElement>(null);
  const [groups, setGroups] = useState<{ id: number; name: string }[]>([]);
  const [groupId, setGroupId] = useState('');

  // A new event needs a group: an API key's own by default, else the one picked here.
  useEffect(() => {
    if (props.mode !== 'import') return;
    listAll<{ id: number; name: string }>(api, '/groups')
      .then((list) => {
        setGroups(list);
        if (list[0]) setGroupId(String(list[0].id));
      })
      .catch(() => undefined);
  }, [api, props.mode]);

  const fail = (err: unknown) => setError(err instanceof OfflineError ? t('eventFile.unreachable') : (err as Error).message);

  const showImport = (status: number | undefined, body: unknown) => {
    if (status === 200 || status === 201) {
      const report = body as ImportReport;
      setImportedId(report.event_id);
      setLines(importSummary(report, t));
    } else {
      setError(detailOf(body) ?? t('eventFile.serverAnswered', { status }));
    }
  };

  const doExport = async () => {
    if (props.mode !== 'export') return;
    setBusy(true);
    setError(undefined);
    try {
      if (desktop) {
        const outcome = await desktop.exportEvent({ eventId: props.eventId, eventName: props.eventName, token: api.token });
        if (outcome.error) throw new Error(outcome.error);
        setLines(outcome.saved ? [t('eventFile.saved', { path: outcome.path }), t('eventFile.size', { kb: Math.ceil((outcome.bytes ?? 0) / 1024) })] : [t('eventFile.notSaved')]);
      } else {
        const saved = await downloadEventFile(api, props.eventId, props.eventName);
        setLines([t('eventFile.downloaded', { name: saved.name }), t('eventFile.size', { kb: Math.ceil(saved.bytes / 1024) })]);
      }
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  const doImport = async (file?: File) => {
    setBusy(true);
    setError(undefined);
    try {
      if (desktop && !file) {
        const outcome = await desktop.importEvent({ token: api.token, groupId: groupId ? Number(groupId) : undefined });
        if (outcome.error) throw new Error(outcome.error);
        if (!outcome.imported && outcome.status === undefined) setLines([t('eventFile.noFile')]);
        else showImport(outcome.status, outcome.body);
      } else if (file) {
        const answer = await uploadEventFile(api, file, groupId ? Number(groupId) : undefined);
        showImport(answer.status, answer.body);
      }
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  const title = props.mode === 'export' ? t('eventFile.exportTitle', { name: props.eventName }) : t('eventFile.importTitle');
  return (
    <Dialog title={title} onClose={() => onClose(importedId)}>
      {props.mode === 'export' ? (
        <p>{t('eventFile.exportIntro')}</p>
      ) : (
        <p>{t('eventFile.importIntro')}</p>
      )}
      {!lines && props.mode === 'export' && (
        <button type="button" className="primary big" disabled={busy} onClick={doExport} autoFocus>
          {busy ? t('eventFile.exporting') : t('eventFile.export')}
        </button>
      )}
      {!lines && props.mode === 'import' && (
        <>
          {groups.length > 0 && (
            <label>
              {t('eventFile.groupForNew')}
              <select name="group_id" value={groupId} onChange={(e) => setGroupId(e.target.value)}>
                {groups.map((g) => (
                  <option key={g.id} value={g.id}>
                    {g.name}
                  </option>
                ))}
              </select>
            </label>
          )}
          {desktop ? (
            <button type="button" className="primary big" disabled={busy} onClick={() => doImport()} autoFocus>
              {busy ? t('eventFile.importing') : t('eventFile.choose')}
            </button>
          ) : (
            <label>
              {t('eventFile.file')}
              <input ref={fileInput} type="file" disabled={busy} autoFocus onChange={(e) => e.target.files?.[0] && doImport(e.target.files[0])} />
            </label>
          )}
          {busy && <progress aria-label={t('eventFile.importingLabel')} />}
        </>
      )}
      {busy && props.mode === 'export' && <progress aria-label={t('eventFile.exportingLabel')} />}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {lines && (
        <ul className="report" role="status">
          {lines.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </Dialog>
  );
}
