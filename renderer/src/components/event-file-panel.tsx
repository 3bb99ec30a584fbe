import { useEffect, useRef, useState } from 'react';
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

  const fail = (err: unknown) => setError(err instanceof OfflineError ? 'The server cannot be reached.' : (err as Error).message);

  const showImport = (status: number | undefined, body: unknown) => {
    if (status === 200 || status === 201) {
      const report = body as ImportReport;
      setImportedId(report.event_id);
      setLines(importSummary(report));
    } else {
      setError(detailOf(body) ?? `The server answered ${status}.`);
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
        setLines(outcome.saved ? [`Saved ${outcome.path}`, `${Math.ceil((outcome.bytes ?? 0) / 1024)} kB`] : ['Not saved.']);
      } else {
        const saved = await downloadEventFile(api, props.eventId, props.eventName);
        setLines([`Downloaded ${saved.name}`, `${Math.ceil(saved.bytes / 1024)} kB`]);
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
        if (!outcome.imported && outcome.status === undefined) setLines(['No file chosen.']);
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

  const title = props.mode === 'export' ? `Export “${props.eventName}”` : 'Import an event file';
  return (
    <Dialog title={title} onClose={() => onClose(importedId)}>
      {props.mode === 'export' ? (
        <p>One file with the guest list, sessions and every check-in, to merge on another laptop.</p>
      ) : (
        <p>Merges by record: nothing is duplicated and check-ins from both sides are kept.</p>
      )}
      {!lines && props.mode === 'export' && (
        <button type="button" className="primary big" disabled={busy} onClick={doExport} autoFocus>
          {busy ? 'Exporting…' : 'Export event file'}
        </button>
      )}
      {!lines && props.mode === 'import' && (
        <>
          {groups.length > 0 && (
            <label>
              Group for a new event (an event already here keeps its own)
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
              {busy ? 'Importing…' : 'Choose event file…'}
            </button>
          ) : (
            <label>
              Event file
              <input ref={fileInput} type="file" disabled={busy} autoFocus onChange={(e) => e.target.files?.[0] && doImport(e.target.files[0])} />
            </label>
          )}
          {busy && <progress aria-label="Importing" />}
        </>
      )}
      {busy && props.mode === 'export' && <progress aria-label="Exporting" />}
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
