/** The door screen talks to the same REST API as any LAN client, over plain fetch. */
export const API_BASE = '/api/v1';

/** The server could not be reached, or answered with a server-side failure (5xx). */
export class OfflineError extends Error {
  constructor(message = 'The server cannot be reached.') {
    super(message);
    this.name = 'OfflineError';
  }
}

/** A request of a client the station has signed out of: never sent, or its answer dropped. */
export class SignedOutError extends Error {
  constructor() {
    super('Signed out.');
    this.name = 'SignedOutError';
  }
}

/** The token is no longer valid: the screen goes back to sign-in. */
export class SessionExpiredError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'SessionExpiredError';
  }
}

export interface ApiAnswer<T = any> {
  status: number;
  body: T;
}

const REQUEST_TIMEOUT_MS = 6000;

export interface RequestOptions {
  /** How long to wait before taking the server for out of reach (a scan waits less than a list). */
  timeoutMs?: number;
  /** Another laptop's API base (`https://.../api/v1`) instead of this page's own. */
  base?: string;
}

/**
 * One request. Any answer below 500 comes back for the caller to read; a network failure,
 * a timeout or a 5xx throws OfflineError so scans can be queued; 401 throws SessionExpiredError.
 */
export async function apiRequest<T = any>(token: string | null, method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Token ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch((options.base ?? API_BASE) + path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs ?? REQUEST_TIMEOUT_MS),
      cache: 'no-store',
    });
  } catch {
    throw new OfflineError();
  }
  if (res.status >= 500) throw new OfflineError(`The server answered ${res.status}.`);
  let text: string;
  try {
    text = await res.text();
  } catch {
    // The answer was cut off after its status (the timeout, or the network): never taken for an
    // empty answer, which a scan would show as refused although the server may have admitted it.
    throw new OfflineError();
  }
  let parsed: unknown = text;
  if (text && (res.headers.get('content-type') ?? '').includes('json')) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (res.status === 401 && token) throw new SessionExpiredError(detailOf(parsed) ?? 'Your session has expired. Please relogin.');
  return { status: res.status, body: parsed as T };
}

/** The human message of an error body: `detail`, `details`, or the first field error. */
export function detailOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return typeof body === 'string' && body ? body : undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['detail', 'details']) {
    const value = record[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.length) return value.map(String).join(' ');
  }
  for (const [field, value] of Object.entries(record)) {
    if (Array.isArray(value) && value.length) return `${field}: ${value.map(String).join(' ')}`;
  }
  return undefined;
}

/**
 * Where a door screen goes on once its own laptop stopped answering: another laptop of the
 * event's venue (use-venue-move.ts), its own id of the event, and the door pass it takes there.
 */
export interface VenueMove {
  name: string;
  base: string;
  pass: string;
  fromEventId: number;
  toEventId: number;
}

/** `path` about the moved event, as the other laptop names it; undefined for anything else (it stays with this page's laptop). */
function movedPath(path: string, move: VenueMove): string | undefined {
  const prefix = `/events/${move.fromEventId}`;
  if (path !== prefix && !path.startsWith(`${prefix}/`) && !path.startsWith(`${prefix}?`)) return undefined;
  return `/events/${move.toEventId}${path.slice(prefix.length)}`;
}

/** An API client bound to one token. */
export class Api {
  constructor(
    readonly token: string,
    private readonly onExpired: (detail: string) => void = () => {},
  ) {}

  private closed = false;
  private move?: VenueMove;

  /** From now on the event's requests go to another laptop of its venue, with its door pass. */
  moveTo(move: VenueMove): void {
    this.move = move;
  }

  get moved(): VenueMove | undefined {
    return this.move;
  }

  /**
   * Signed out (or the token refused): nothing is sent any more, and an answer still on its way
   * is taken for none, so it cannot write a guest back into the browser after the wipe.
   */
  close(): void {
    this.closed = true;
  }

  async request<T = any>(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<ApiAnswer<T>> {
    if (this.closed) throw new SignedOutError();
    const move = this.move;
    const moved = move && movedPath(path, move);
    if (move && moved) return this.requestMoved<T>(move, method, moved, body, options);
    try {
      const answer = await apiRequest<T>(this.token, method, path, body, options);
      if (this.closed) throw new SignedOutError();
      return answer;
    } catch (err) {
      if (err instanceof SessionExpiredError && !this.closed) this.onExpired(err.detail);
      throw err;
    }
  }

  /** At another laptop of the venue: a refused pass is that laptop out of reach for this screen, never a sign-out. */
  private async requestMoved<T>(move: VenueMove, method: string, path: string, body: unknown, options: RequestOptions = {}): Promise<ApiAnswer<T>> {
    try {
      const answer = await apiRequest<T>(move.pass, method, path, body, { ...options, base: move.base });
      if (this.closed) throw new SignedOutError();
      return answer;
    } catch (err) {
      throw err instanceof SessionExpiredError ? new OfflineError(err.detail) : err;
    }
  }

  /** GET that must succeed; anything but 200 becomes an Error with the server's words. */
  async get<T = any>(path: string, options?: RequestOptions): Promise<T> {
    const answer = await this.request<T>('GET', path, undefined, options);
    if (answer.status !== 200) throw new Error(detailOf(answer.body) ?? `The server answered ${answer.status}.`);
    return answer.body;
  }
}

/** POST /apps/api/auth; answers the token or throws with a message for the sign-in form. */
export async function signIn(username: string, password: string): Promise<string> {
  const answer = await apiRequest<{ token?: string; detail?: string }>(null, 'POST', '/apps/api/auth', { username, password });
  if (answer.status === 200 && answer.body.token) return answer.body.token;
  if (answer.status === 429) throw new Error(detailOf(answer.body) ?? 'Too many attempts. Wait a few minutes.');
  throw new Error('Wrong username or password.');
}

/** The API's Datetime for now: `YYYY-MM-DDThh:mm:ss`, UTC. */
export function apiNow(date = new Date()): string {
  return date.toISOString().slice(0, 19);
}

/** Every page of a list envelope (events, sessions, registration types are short lists). */
export async function listAll<T>(api: Api, path: string, maxPages = 20): Promise<T[]> {
  const results: T[] = [];
  const separator = path.includes('?') ? '&' : '?';
  for (let page = 1; page <= maxPages; page += 1) {
    const body = await api.get<{ results?: T[]; next?: string | null }>(`${path}${separator}page=${page}`);
    results.push(...(body.results ?? []));
    if (!body.next) break;
  }
  return results;
}

/** A file the API writes (CSV, event file), saved through the browser's download. */
export async function downloadFrom(api: Api, path: string, fallbackName: string): Promise<{ name: string; bytes: number }> {
  let res: Response;
  try {
    res = await fetch(API_BASE + path, { headers: { authorization: `Token ${api.token}` } });
  } catch {
    throw new OfflineError();
  }
  if (!res.ok) throw new Error(detailOf(await res.json().catch(() => undefined)) ?? `The server answered ${res.status}.`);
  const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(res.headers.get('content-disposition') ?? '');
  const name = match ? decodeURIComponent(match[1]) : fallbackName;
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return { name, bytes: blob.size };
}
