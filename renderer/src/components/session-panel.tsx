import type { SessionSummary } from '../types';
import { Dialog } from './dialog';

function rules(session: SessionSummary): string {
  if (!session.access_control) return 'Open to every guest';
  return session.auto_registration ? 'Registration required; registers guests at the door while there is room' : 'Registered guests only';
}

/** Event door, or attendance for one session: scans then carry its id. */
export function SessionPanel({ sessions, current, onPick, onClose }: { sessions: SessionSummary[]; current?: SessionSummary; onPick: (session?: SessionSummary) => void; onClose: () => void }) {
  return (
    <Dialog title="What does this door admit to?" onClose={onClose}>
      <ul className="choice-list">
        <li>
          <button type="button" className={!current ? 'choice active' : 'choice'} aria-pressed={!current} autoFocus={!current} onClick={() => onPick(undefined)}>
            <span className="name">The event</span>
            <span className="meta">Check guests in at the entrance</span>
          </button>
        </li>
        {sessions.map((s) => (
          <li key={s.id}>
            <button type="button" className={current?.id === s.id ? 'choice active' : 'choice'} aria-pressed={current?.id === s.id} autoFocus={current?.id === s.id} onClick={() => onPick(s)}>
              <span className="name">{s.name}</span>
              <span className="meta">
                {s.starts ? `${s.starts.slice(11, 16)}–${s.ends?.slice(11, 16) ?? ''} GMT · ` : ''}
                {rules(s)}
                {s.capacity !== undefined ? ` · capacity ${s.capacity}` : ''}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {!sessions.length && <p className="muted">This event has no sessions.</p>}
    </Dialog>
  );
}
