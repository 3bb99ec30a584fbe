import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

// `scheme://...` is a database URL, never a file name (a drive letter `C:\` has no `//`).
const URL_SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
const POSTGRES_SCHEMES = new Set(['postgres', 'postgresql']);

/** DOORLIST_DB: a SQLite file path or a PostgreSQL URL; any other URL is a mistake. */
const databaseSetting = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    const scheme = URL_SCHEME.exec(value)?.[1].toLowerCase();
    if (scheme === undefined || POSTGRES_SCHEMES.has(scheme)) return;
    ctx.addIssue({ code: 'custom', message: `${scheme}:// is not a database Doorlist can use; give the path of a SQLite file or a postgres:// URL` });
  });

const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * DOORLIST_TRUST_PROXY: which peers' `X-Forwarded-For` names the client (Express's `trust
 * proxy`): addresses, CIDR ranges and `loopback` / `linklocal` / `uniquelocal`,
 * comma-separated. Never "every peer", and never a number of hops: with either, a client that
 * reaches the port directly writes its own X-Forwarded-For and picks its address (first run,
 * the login limit).
 */
const trustProxySetting = z
  .string()
  .trim()
  .transform((value, ctx): string => {
    const parts = value.split(',').map((p) => p.trim());
    if (parts.every((p) => PROXY_RANGES.has(p) || isAddressOrRange(p))) return parts.join(',');
    const message = /^\d+$/.test(value)
      ? 'a number of proxy hops lets a client that reaches this port directly choose its own address; name the proxies instead: loopback, their addresses or CIDR ranges, comma-separated'
      : "give the proxies' addresses, CIDR ranges or loopback, comma-separated";
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });

function isAddressOrRange(value: string): boolean {
  const [address, bits, ...rest] = value.split('/');
  if (rest.length > 0 || net.isIP(address) === 0) return false;
  if (bits === undefined) return true;
  return /^\d+$/.test(bits) && Number(bits) <= (net.isIP(address) === 4 ? 32 : 128);
}

const ConfigSchema = z
  .object({
    db: databaseSetting,
    /** PostgreSQL only: connections per process, and the longest a statement may run. */
    dbPool: z.coerce.number().int().min(1).max(1000).optional(),
    dbStatementTimeoutMs: z.coerce.number().int().min(100).optional(),
    host: z.string().min(1),
    port: z.coerce.number().int().min(0).max(65535),
    httpsPort: z.coerce.number().int().min(0).max(65535),
    adminUsername: z.string().min(1).optional(),
    adminPassword: z.string().min(1).optional(),
    smtpUrl: z.string().min(1).optional(),
    logLevel: z.enum(LOG_LEVELS),
    /** DOORLIST_LAN_HTTP=1: plain HTTP also answers other devices (old clients); off by default. */
    lanHttp: z.boolean(),
    trustProxy: trustProxySetting.optional(),
    /** DOORLIST_CHECK_REPLIES=1 (the test servers): every answer is checked against its declared schema. */
    checkReplies: z.boolean(),
    /** An upload's body: cut (408) after this long with no byte, or below the minimum rate once the grace has passed. */
    uploadIdleTimeoutMs: z.coerce.number().int().min(10).max(3_600_000),
    uploadMinBytesPerSecond: z.coerce.number().int().min(0),
    uploadGraceMs: z.coerce.number().int().min(10).max(3_600_000),
    /**
     * DOORLIST_TEST_IMPORT_WAIT_MS (tests only): how long an event-file import waits for another
     * import of the same event before answering 409 (30 s when unset).
     */
    importWaitMs: z.coerce.number().int().min(0).optional(),
    /**
     * DOORLIST_IMPORT_ABANDONED_MS: an import or merge whose heartbeat has been silent this long
     * is taken for dead (a crash, kill -9) and what it left is cleared; it stamps five times as
     * often. Every process on one database must agree on it.
     */
    importAbandonedMs: z.coerce.number().int().min(500).max(3_600_000),
    /** DOORLIST_DOOR_ACTIVE_MS: an API write this recent means a door is at work, so imports and merges go in short turns. */
    doorActiveMs: z.coerce.number().int().min(0).max(3_600_000),
    /** DOORLIST_SYNC_DEADLINE_S: the longest one exchange with a followed upstream may take (a pull, a push). */
    syncDeadlineSeconds: z.coerce.number().int().min(1).max(86_400),
    /** DOORLIST_SYNC_MIN_RATE: bytes a second an upstream's answer (or a push going up) may not fall under. */
    syncMinRate: z.coerce.number().int().min(1),
    /** DOORLIST_SYNC_TICK_MS: how often each followed event pulls and pushes (a write here nudges it sooner). */
    syncTickMs: z.coerce.number().int().min(10).max(3_600_000),
    /** DOORLIST_SYNC_ERROR_RETRY_MS: after a cycle that ended in `error`, the first wait (doubling up to 30 times it). */
    syncErrorRetryMs: z.coerce.number().int().min(10).max(3_600_000),
    /** DOORLIST_VENUE_PROBE_S: how long a venue's laptop waits on a silent upstream before it asks the venue's other laptops. */
    venueProbeSeconds: z.coerce.number().min(0.05).max(86_400),
    /** DOORLIST_STATION_NAME: how this laptop names itself to the venue's other laptops (its host name unless said). */
    stationName: z.string().trim().min(1).max(64),
  })
  .readonly();

export type Config = z.infer<typeof ConfigSchema>;

/** Where the database lives when nobody says: the per-user data folder of the OS. */
export function defaultDataDir(): string {
  const home = os.homedir();
  if (process.platform === 'win32') return path.join(process.env.APPDATA ?? home, 'Doorlist');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Doorlist');
  return path.join(process.env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'doorlist');
}

/**
 * The one place that reads DOORLIST_* variables and command-line flags.
 * Flags win over the environment; both win over defaults.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  argv: string[] = process.argv.slice(2),
  overrides: Partial<Config> = {},
): Config {
  const { values } = parseArgs({
    args: argv,
    options: {
      db: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'https-port': { type: 'string' },
    },
    strict: false,
    allowPositionals: true,
  });
  const parsed = ConfigSchema.safeParse({
    db: values.db ?? env.DOORLIST_DB ?? path.join(defaultDataDir(), 'doorlist.sqlite'),
    dbPool: env.DOORLIST_DB_POOL || undefined,
    dbStatementTimeoutMs: env.DOORLIST_DB_STATEMENT_TIMEOUT_MS || undefined,
    host: values.host ?? env.DOORLIST_HOST ?? '127.0.0.1',
    port: values.port ?? env.DOORLIST_PORT ?? 8787,
    httpsPort: values['https-port'] ?? env.DOORLIST_HTTPS_PORT ?? 8788,
    adminUsername: env.DOORLIST_ADMIN_USERNAME || undefined,
    adminPassword: env.DOORLIST_ADMIN_PASSWORD || undefined,
    smtpUrl: env.DOORLIST_SMTP_URL || undefined,
    logLevel: env.DOORLIST_LOG_LEVEL ?? 'info',
    lanHttp: ['1', 'true', 'yes'].includes((env.DOORLIST_LAN_HTTP ?? '').toLowerCase()),
    trustProxy: env.DOORLIST_TRUST_PROXY || undefined,
    checkReplies: ['1', 'true', 'yes'].includes((env.DOORLIST_CHECK_REPLIES ?? '').toLowerCase()),
    uploadIdleTimeoutMs: env.DOORLIST_UPLOAD_IDLE_TIMEOUT_MS || 20_000,
    uploadMinBytesPerSecond: env.DOORLIST_UPLOAD_MIN_RATE || 2048,
    uploadGraceMs: env.DOORLIST_UPLOAD_GRACE_MS || 10_000,
    importWaitMs: env.DOORLIST_TEST_IMPORT_WAIT_MS || undefined,
    importAbandonedMs: env.DOORLIST_IMPORT_ABANDONED_MS || 10_000,
    doorActiveMs: env.DOORLIST_DOOR_ACTIVE_MS || 10_000,
    syncDeadlineSeconds: env.DOORLIST_SYNC_DEADLINE_S || 600,
    syncMinRate: env.DOORLIST_SYNC_MIN_RATE || 4096,
    syncTickMs: env.DOORLIST_SYNC_TICK_MS || 1000,
    syncErrorRetryMs: env.DOORLIST_SYNC_ERROR_RETRY_MS || 1000,
    venueProbeSeconds: env.DOORLIST_VENUE_PROBE_S || 10,
    stationName: (env.DOORLIST_STATION_NAME || os.hostname()).slice(0, 64),
    ...overrides,
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid Doorlist configuration: ${problems}`);
  }
  return Object.freeze(parsed.data);
}
