import { useEffect, useReducer, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { detailOf, listAll, OfflineError, type Api, type ApiAnswer } from '../api';
import { formatDateTime, utcInstant } from '../i18n/format';
import { Fingerprint } from './fingerprint';

/** The upstream as the preview lists it (POST /sync/preview). */
interface UpstreamEvent {
  id: number;
  name: string;
  starts: string;
  ends: string;
  timezone: string;
}

interface Upstream {
  url: string;
  key: string;
}

/**
 * Following, step by step (DESIGN "Following a central Doorlist"): the address and key; then,
 * for a laptop whose certificate this one does not trust, its fingerprint to compare with the
 * one on that laptop's screen; then the events the key sees there, to pick one by name.
 */
type Step =
  | { step: 'address' }
  | { step: 'compare'; upstream: Upstream; offered: string }
  | { step: 'pick'; upstream: Upstream; fingerprint?: string; events: UpstreamEvent[] };

type Action = { type: 'offered'; upstream: Upstream; fingerprint: string } | { type: 'listed'; upstream: Upstream; fingerprint?: string; events: UpstreamEvent[] } | { type: 'restart' };

function follow(state: Step, action: Action): Step {
  if (action.type === 'offered') return { step: 'compare', upstream: action.upstream, offered: action.fingerprint };
  if (action.type === 'listed') return { step: 'pick', upstream: action.upstream, fingerprint: action.fingerprint, events: action.events };
  return state.step === 'address' ? state : { step: 'address' };
}

const FINGERPRINT = /(?:[0-9A-F]{2}:){31}[0-9A-F]{2}/;
// Preview and follow wait on the other laptop (the follow pulls the whole event).
const PREVIEW_TIMEOUT_MS = 20_000;
const FOLLOW_TIMEOUT_MS = 120_000;

/**
 * What people copy off the other laptop's screen ("https://192.168.1.20:8788") made into the
 * API base the sync takes: https:// when no scheme is typed, /api/v1 when no path is.
 */
export function upstreamBase(typed: string): string {
  const text = typed.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  if (!URL.canParse(withScheme)) return text;
  const url = new URL(withScheme);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/api/v1';
  return url.toString().replace(/\/+$/, '');
}

type FieldErrors = Record<string, string[]>;

/** The fingerprint a 400 on `fingerprint` carries: the other laptop's, for the user to compare. */
function offeredFingerprint(answer: ApiAnswer<FieldErrors>): string | undefined {
  if (answer.status !== 400) return undefined;
  return answer.body.fingerprint?.map((message) => FINGERPRINT.exec(message)?.[0]).find(Boolean);
}

export function FollowPanel({ api, onFollowed }: { api: Api; onFollowed: (eventId: number) => void }) {
  const { t } = useTranslation('sync');
  const [state, dispatch] = useReducer(follow, { step: 'address' });
  const [busy, setBusy] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<string>();

  /** One call to the laptop's API; field errors and a detail are shown, the answer returned. */
  const call = async <T,>(path: string, body: unknown, timeoutMs: number): Promise<ApiAnswer<T> | undefined> => {
    setBusy(true);
    setError(undefined);
    setFieldErrors({});
    try {
      return await api.request<T>('POST', path, body, { timeoutMs });
    } catch (err) {
      setError(err instanceof OfflineError ? t('serverUnreachable') : (err as Error).message);
      return undefined;
    } finally {
      setBusy(false);
    }
  };

  const refused = (answer: ApiAnswer<FieldErrors>) => {
    if (answer.status === 400 && !('detail' in answer.body)) setFieldErrors(answer.body);
    else setError(detailOf(answer.body) ?? t('failed', { status: answer.status }));
  };

  const preview = async (upstream: Upstream, fingerprint?: string) => {
    const answer = await call<{ fingerprint: string | null; events: UpstreamEvent[] } & FieldErrors>('/sync/preview', { ...upstream, fingerprint }, PREVIEW_TIMEOUT_MS);
    if (!answer) return;
    if (answer.status === 200) return dispatch({ type: 'listed', upstream, fingerprint: answer.body.fingerprint ?? undefined, events: answer.body.events });
    const offered = fingerprint === undefined ? offeredFingerprint(answer) : undefined;
    if (offered) return dispatch({ type: 'offered', upstream, fingerprint: offered });
    refused(answer);
  };

  const followEvent = async (upstream: Upstream, fingerprint: string | undefined, eventId: number, groupId: number | undefined) => {
    const answer = await call<{ event_id: number } & FieldErrors>('/sync', { ...upstream, fingerprint, event_id: eventId, group_id: groupId }, FOLLOW_TIMEOUT_MS);
    if (!answer) return;
    if (answer.status === 201) return onFollowed(answer.body.event_id);
    refused(answer);
  };

  const restart = () => {
    setFieldErrors({});
    setError(undefined);
    dispatch({ type: 'restart' });
  };

  return (
    <div className="follow" data-testid="follow-panel" data-step={state.step}>
      {state.step === 'address' && <AddressStep busy={busy} fieldErrors={fieldErrors} onSubmit={(upstream) => void preview(upstream)} />}
      {state.step === 'compare' && (
        <CompareStep
          busy={busy}
          offered={state.offered}
          onMatch={() => void preview(state.upstream, state.offered)}
          onDiffer={() => {
            restart();
            setError(t('fingerprintDiffers'));
          }}
        />
      )}
      {state.step === 'pick' && (
        <PickStep
          api={api}
          busy={busy}
          events={state.events}
          fingerprint={state.fingerprint}
          onPick={(eventId, groupId) => void followEvent(state.upstream, state.fingerprint, eventId, groupId)}
          onBack={restart}
        />
      )}
      {Object.entries(fieldErrors)
        .filter(([field]) => state.step !== 'address' || !['url', 'key'].includes(field))
        .flatMap(([, messages]) => messages)
        .map((message) => (
          <p key={message} className="error" role="alert">
            {message}
          </p>
        ))}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function AddressStep({ busy, fieldErrors, onSubmit }: { busy: boolean; fieldErrors: FieldErrors; onSubmit: (upstream: Upstream) => void }) {
  const { t } = useTranslation('sync');
  const [url, setUrl] = useState('');
  const [key, setKey] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit({ url: upstreamBase(url), key: key.trim() });
  };
  const errors = (field: string) =>
    fieldErrors[field]?.map((message) => (
      <span key={message} className="field-error">
        {message}
      </span>
    ));
  return (
    <form className="form" onSubmit={submit}>
      <p>{t('intro')}</p>
      <label>
        {t('url')}
        <input name="url" required placeholder="https://192.168.1.20:8788" spellCheck={false} autoCapitalize="off" value={url} onChange={(e) => setUrl(e.target.value)} />
        {errors('url')}
      </label>
      <label>
        {t('key')}
        <input name="key" type="password" required autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} />
        {errors('key')}
      </label>
      <p className="muted">{t('keyStaysHere')}</p>
      <button type="submit" className="primary" disabled={busy}>
        {busy ? t('connecting') : t('connect')}
      </button>
    </form>
  );
}

function CompareStep({ busy, offered, onMatch, onDiffer }: { busy: boolean; offered: string; onMatch: () => void; onDiffer: () => void }) {
  const { t } = useTranslation('sync');
  return (
    <div className="form">
      <p>{t('compareIntro')}</p>
      <Fingerprint value={offered} testId="offered-fingerprint" />
      <p className="muted">{t('compareWhere')}</p>
      <div className="actions">
        <button type="button" className="primary" disabled={busy} onClick={onMatch}>
          {t('fingerprintMatches')}
        </button>
        <button type="button" disabled={busy} onClick={onDiffer}>
          {t('fingerprintDiffersButton')}
        </button>
      </div>
    </div>
  );
}

function PickStep(props: { api: Api; busy: boolean; events: UpstreamEvent[]; fingerprint?: string; onPick: (eventId: number, groupId: number | undefined) => void; onBack: () => void }) {
  const { api, busy, events, fingerprint, onPick, onBack } = props;
  const { t } = useTranslation('sync');
  const [picked, setPicked] = useState<number | undefined>(events.length === 1 ? events[0].id : undefined);
  const [groups, setGroups] = useState<{ id: number; name: string }[]>([]);
  const [groupId, setGroupId] = useState<number>();

  // A new event lands in a group here: an API key's own, else the one picked.
  useEffect(() => {
    listAll<{ id: number; name: string }>(api, '/groups')
      .then((list) => {
        setGroups(list);
        setGroupId((current) => current ?? list[0]?.id);
      })
      .catch(() => undefined);
  }, [api]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (picked !== undefined) onPick(picked, groupId);
  };

  return (
    <form className="form" onSubmit={submit}>
      {fingerprint && (
        <div className="muted pinned">
          <p>{t('pinnedLabel')}</p>
          <Fingerprint value={fingerprint} testId="pinned-fingerprint" />
        </div>
      )}
      {events.length === 0 ? (
        <p>{t('noEvents')}</p>
      ) : (
        <fieldset className="upstream-events">
          <legend>{t('pickEvent')}</legend>
          {events.map((event) => (
            <label key={event.id} className="upstream-event">
              <input type="radio" name="event" value={event.id} checked={picked === event.id} onChange={() => setPicked(event.id)} />
              <span>
                <strong>{event.name}</strong>
                <span className="muted">{`${t('eventWhen', { starts: formatDateTime(utcInstant(event.starts), 'UTC'), ends: formatDateTime(utcInstant(event.ends), 'UTC') })} · ${event.timezone}`}</span>
              </span>
            </label>
          ))}
        </fieldset>
      )}
      {groups.length > 0 && (
        <label>
          {t('group')}
          <select name="group_id" value={groupId ?? ''} onChange={(e) => setGroupId(Number(e.target.value))}>
            {groups.map((g) => (
              <option key={g.id} value={g.id}>
                {g.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || picked === undefined}>
          {busy ? t('following') : t('follow')}
        </button>
        <button type="button" disabled={busy} onClick={onBack}>
          {t('otherUpstream')}
        </button>
      </div>
    </form>
  );
}
