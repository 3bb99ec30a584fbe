import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { loadConfig } from './config';
import { createDb, migrateLatest, type Db } from '../db/knex';
import { protectDatabaseFiles } from './data-files';
import { DomainError } from '../core/errors';
import { HttpError } from './errors';
import { timestampParam } from './pagination';
import { exportEventToPath, importEventFile, type ImportResult, type Progress } from './event-file';
import { runFollow, runSyncStatus, runUnfollow, SYNC_USAGE } from './sync/cli';

const USAGE = `Usage:
  npm run doorlist -- export --event <id> --out <file> [--since <time>] [--db <file>]
  npm run doorlist -- import --in <file> [--group <id>] [--db <file>]
${SYNC_USAGE}

Works directly on the database (--db, else DOORLIST_DB, else the per-user default).
An import of an event that exists here merges into it; a new event goes into --group, or
without it into the file's own group (made here if this database lacks it).
--since (Unix seconds or an ISO datetime) exports only what changed at or after it.`;

class UsageError extends Error {}

function progressBar(label: string): { onProgress: Progress; stop: () => void } {
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total} records`, stream: process.stderr, hideCursor: true, noTTYOutput: false },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    onProgress: (done, total) => {
      if (!started) {
        bar.start(total, 0);
        started = true;
      }
      bar.setTotal(total);
      bar.update(done);
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`${flag} must be a positive integer id.`);
  return Number(value);
}

// The command line's names for the API's fields.
const FLAGS: Record<string, string> = { group_id: '--group' };

function summary(result: ImportResult): string {
  const made = result.group_created ? ", made from the file's group" : '';
  const lines = [result.event_created ? `Created event ${result.event_id} in group ${result.group_id}${made}.` : `Merged into event ${result.event_id}.`];
  const tables = Object.keys(result.created);
  const width = Math.max(...tables.map((t) => t.length));
  lines.push(`${'table'.padEnd(width)}  created  updated  unchanged  skipped`);
  for (const t of tables) {
    const cells = [result.created[t], result.updated[t], result.unchanged[t], result.skipped[t]];
    if (cells.every((n) => n === 0)) continue;
    lines.push(`${t.padEnd(width)}  ${String(cells[0]).padStart(7)}  ${String(cells[1]).padStart(7)}  ${String(cells[2]).padStart(9)}  ${String(cells[3]).padStart(7)}`);
  }
  lines.push(`Check-ins added: ${result.checkins_added}`);
  for (const c of result.conflicts) lines.push(`Conflict: ${c.table} ${c.uid} ${c.kind}${c.value ? ` "${c.value}"` : ''}: ${c.resolution}`);
  for (const d of result.double_admissions) {
    lines.push(`Double admission: ${d.name} (guest ${d.guest_id}): ${d.checkins.map((c) => `${c.station ?? 'unknown station'} at ${c.scanned_at}`).join(' and ')}`);
  }
  return lines.join('\n');
}

async function runExport(db: Db, values: Record<string, string | boolean | undefined>): Promise<void> {
  const eventId = positiveInt(values.event as string | undefined, '--event');
  const out = values.out as string | undefined;
  if (eventId === undefined || !out) throw new UsageError('export needs --event <id> and --out <file>.');
  const since = values.since === undefined ? undefined : timestampParam.safeParse(values.since);
  if (since && !since.success) throw new UsageError('--since must be Unix seconds or an ISO datetime.');
  const event = await db('events').where({ id: eventId }).first();
  if (!event) throw new UsageError(`Event ${eventId} not found in this database.`);
  const bar = progressBar('Exporting');
  const started = Date.now();
  try {
    const counts = await exportEventToPath(db, event, out, { since: since?.data, onProgress: bar.onProgress });
    bar.stop();
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const what = since ? `the changes since ${since.data} of "${event.name}"` : `"${event.name}"`;
    process.stdout.write(`Exported ${what} (event ${eventId}) to ${out}: ${total} records in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`);
    for (const [table, n] of Object.entries(counts)) if (n > 0) process.stdout.write(`  ${table}: ${n}\n`);
  } finally {
    bar.stop();
  }
}

async function runImport(db: Db, values: Record<string, string | boolean | undefined>): Promise<void> {
  const file = values.in as string | undefined;
  if (!file) throw new UsageError('import needs --in <file>.');
  const groupId = positiveInt(values.group as string | undefined, '--group');
  const bar = progressBar('Importing');
  try {
    // The command line works with the whole database, as its administrator.
    const result = await importEventFile(db, file, { scope: null, groupId }, bar.onProgress);
    bar.stop();
    process.stdout.write(summary(result) + '\n');
  } finally {
    bar.stop();
  }
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      db: { type: 'string' },
      event: { type: 'string' },
      out: { type: 'string' },
      in: { type: 'string' },
      group: { type: 'string' },
      url: { type: 'string' },
      key: { type: 'string' },
      fingerprint: { type: 'string' },
      since: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  const command = positionals[0];
  const SYNC_COMMANDS = ['follow', 'unfollow', 'sync-status'];
  if (values.help || (command !== 'export' && command !== 'import' && !SYNC_COMMANDS.includes(command))) {
    process.stdout.write(USAGE + '\n');
    return values.help ? 0 : 2;
  }
  const config = loadConfig(process.env, values.db ? ['--db', values.db] : []);
  protectDatabaseFiles(config.db);
  const db = createDb(config.db, { pool: config.dbPool, statementTimeoutMs: config.dbStatementTimeoutMs });
  try {
    await migrateLatest(db);
    if (SYNC_COMMANDS.includes(command)) {
      const eventId = positiveInt(values.event as string | undefined, '--event');
      const outcome =
        command === 'follow'
          ? await runFollow(db, values, eventId, positiveInt(values.group as string | undefined, '--group'))
          : command === 'unfollow'
            ? await runUnfollow(db, eventId)
            : await runSyncStatus(db, eventId);
      (outcome.ok ? process.stdout : process.stderr).write(outcome.text + '\n');
      return outcome.ok ? 0 : 1;
    }
    if (command === 'export') await runExport(db, values);
    else await runImport(db, values);
    return 0;
  } finally {
    await db.destroy();
  }
}

/** A refusal as one sentence: the message itself, or each field's messages after its name; never JSON. */
export function refusalSentence(body: Record<string, unknown>): string {
  const detail = body.detail ?? body.details;
  if (typeof detail === 'string') return detail;
  const parts = Object.entries(body).map(([field, messages]) => {
    const text = Array.isArray(messages) ? messages.join(' ') : String(messages);
    return field === 'detail' || field === 'details' || field === 'non_field_errors' ? text : `${FLAGS[field] ?? field}: ${text}`;
  });
  return parts.length > 0 ? parts.join('; ') : 'the request was not accepted.';
}

if (require.main === module) {
  const command = process.argv.slice(2).find((arg) => arg === 'export' || arg === 'import');
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof HttpError || err instanceof DomainError) {
        process.stderr.write(`${command === 'export' ? 'Export' : 'Import'} refused: ${refusalSentence(err.body)}\n`);
      } else if (err instanceof UsageError || (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
        process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
      } else process.stderr.write(`doorlist: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
