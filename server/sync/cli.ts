import type { Db } from '../../db/knex';
import { deleteSync, findSyncByEvent } from '../../db/repositories/sync';
import { DomainError } from '../../core/errors';
import { parseFingerprint } from '../../core/fingerprint';
import { MSG } from '../../core/messages';
import { followEvent, syncStatus } from '.';

export const SYNC_USAGE = `  npm run doorlist -- follow --url <upstream /api/v1> --key <key|-> --event <upstream event id> [--group <id>] [--fingerprint <SHA-256>] [--db <file>]
  npm run doorlist -- unfollow --event <id> [--db <file>]
  npm run doorlist -- sync-status --event <id> [--db <file>]`;

type Values = Record<string, string | boolean | undefined>;
/** What the command printed, or a one-line refusal (exit 1). */
type Outcome = { ok: true; text: string } | { ok: false; text: string };

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.trim();
}

/**
 * `follow` pulls the upstream's event into this database now; a running server's follower
 * takes it up on its next tick. `--key -` reads the key from stdin, out of the shell history.
 */
export async function runFollow(db: Db, values: Values, eventId: number | undefined, groupId: number | undefined): Promise<Outcome> {
  const url = values.url as string | undefined;
  const key = values.key === '-' ? await readStdin() : (values.key as string | undefined);
  if (!url || !key || eventId === undefined) return { ok: false, text: 'follow needs --url, --key and --event.' };
  if (!/^https?:\/\/[^/\s]+/i.test(url) || !URL.canParse(url)) return { ok: false, text: `Follow refused: url: ${MSG.syncUrlScheme}` };
  const given = values.fingerprint as string | undefined;
  const fingerprint = given === undefined ? undefined : parseFingerprint(given);
  if (fingerprint === null) return { ok: false, text: `Follow refused: fingerprint: ${MSG.syncFingerprintFormat}` };
  try {
    // The command line works with the whole database, as its administrator.
    const { event_id, sync_id } = await followEvent(db, { url, key, event_id: eventId, group_id: groupId, fingerprint });
    return { ok: true, text: `Following upstream event ${eventId} as event ${event_id} here (sync ${sync_id}).` };
  } catch (err) {
    if (err instanceof DomainError) return { ok: false, text: `Follow refused: ${messagesOf(err.body)}` };
    throw err;
  }
}

export async function runUnfollow(db: Db, eventId: number | undefined): Promise<Outcome> {
  if (eventId === undefined) return { ok: false, text: 'unfollow needs --event.' };
  if (!(await deleteSync(db, eventId))) return { ok: false, text: `Event ${eventId} is not followed.` };
  return { ok: true, text: `Event ${eventId} is no longer followed; its data stays here.` };
}

export async function runSyncStatus(db: Db, eventId: number | undefined): Promise<Outcome> {
  if (eventId === undefined) return { ok: false, text: 'sync-status needs --event.' };
  const sync = await findSyncByEvent(db, eventId);
  if (!sync) return { ok: false, text: `Event ${eventId} is not followed.` };
  const s = await syncStatus(db, sync);
  const lines = [
    `Event ${s.event_id} follows ${s.url} (event ${s.remote_event_id}): ${s.state}${s.error ? ` (${s.error})` : ''}`,
    `Last pull ${s.last_pull_at ?? 'never'} UTC, last push ${s.last_push_at ?? 'never'} UTC, ${s.pending} change(s) waiting.`,
  ];
  for (const d of s.double_admissions) {
    const name = `${d.first_name ?? ''} ${d.last_name ?? ''}`.trim() || d.guest_uid;
    lines.push(`Double admission: ${name}: ${d.checkins.map((c) => `${c.station ?? 'unknown station'} at ${c.scanned_at}`).join(' and ')}`);
  }
  const moreDoubles = s.double_admissions_count - s.double_admissions.length;
  if (moreDoubles > 0) lines.push(`... and ${moreDoubles} earlier double admission(s) (GET /events/${s.event_id}/sync/double_admissions lists them all).`);
  for (const c of s.conflicts) lines.push(`Conflict: ${c.table} ${c.uid} ${c.kind}${c.value ? ` "${c.value}"` : ''}: ${c.resolution}`);
  const moreConflicts = s.conflicts_count - s.conflicts.length;
  if (moreConflicts > 0) lines.push(`... and ${moreConflicts} earlier conflict(s) (GET /events/${s.event_id}/sync/conflicts lists them all).`);
  return { ok: true, text: lines.join('\n') };
}

function messagesOf(body: Record<string, unknown>): string {
  return Object.entries(body)
    .map(([field, value]) => `${field === 'detail' || field === 'details' ? '' : `${field}: `}${Array.isArray(value) ? value.join(' ') : String(value)}`)
    .join('; ');
}
