/**
 * A simulated follower for bench/central-scale.ts: what a door laptop following the central
 * sends each cycle (server/sync/follower.ts), without a database of its own. Each cycle it
 * pulls `GET .../sync/changes?since=` its pull cursor less the 10 s overlap, greets the venue
 * (`POST .../sync/venue`, every 2.5 s), and pushes `POST .../sync/changes` a delta event file of every
 * record it holds modified at or after its push cursor less the same overlap, less what the
 * central holds at that version (what it pulled, and what it pushed before: the follower's
 * sync_upstream_versions), so only its own scans go up, once each. What it holds is the
 * central's event as its first whole pull gave it, plus what changed since.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { nowIso } from '../core/time';
import { EVENT_FILE_MEDIA_TYPE, EventFileWriter, type EventFileHeader } from '../server/event-file/format';
import { CURSOR_HEADER } from '../server/sync/upstream';

/** The follower's overlap (server/sync/follower.ts OVERLAP_MS). */
const OVERLAP_MS = 10_000;

/** The venue hello's pace (a quarter of DOORLIST_VENUE_PROBE_S's 10 s). */
const GREET_EVERY_MS = 2500;

type FileRecord = Record<string, unknown> & { uid: string; modified: string };

/** An event file read whole: its header and its records in order. */
export interface PulledFile {
  header: EventFileHeader;
  records: { table: string; record: FileRecord }[];
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request on `agent` (keep-alive: one connection per follower); the whole answer. */
export function send(agent: http.Agent, url: URL, options: { method: string; headers: Record<string, string>; body?: Buffer | string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent, method: options.method, headers: options.body === undefined ? options.headers : { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Checks a pulled file as a follower does (header, trailer's count and SHA-256) and reads its records. */
export function readPulled(gzipped: Buffer): PulledFile {
  const lines = zlib.gunzipSync(gzipped).toString('utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const trailer = JSON.parse(lines[lines.length - 1]) as { trailer: { records: number; sha256: string } };
  const hash = createHash('sha256');
  for (const line of lines.slice(0, -1)) hash.update(`${line}\n`);
  if (hash.digest('hex') !== trailer.trailer.sha256 || trailer.trailer.records !== lines.length - 2) throw new Error('a pulled event file is damaged');
  return { header: JSON.parse(lines[0]) as EventFileHeader, records: lines.slice(1, -1).map((line) => JSON.parse(line) as PulledFile['records'][number]) };
}

/** What every follower starts from: the central's event as one whole pull gave it. */
export interface Snapshot {
  header: EventFileHeader;
  eventRecord: FileRecord;
  guestsByBarcode: Map<string, FileRecord>;
  /** The central's cursor for that pull. */
  cursor: string;
}

export interface CycleTimes {
  cycleMs: number;
  pullMs: number;
  pushMs?: number;
  pushedRecords: number;
  pulledRecords: number;
  conflicts: number;
  /** The push was refused for now (429: this key's uploads at once; 503: the server's): the next cycle sends it again. */
  refused?: 429 | 503;
}

function before(cursor: string, ms: number): string {
  return new Date(Date.parse(cursor) - ms).toISOString();
}

export class SimFollower {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  /** Every record changed since the snapshot, its latest version, by table and uid. */
  private readonly changed = new Map<string, { table: string; record: FileRecord }>();
  /** The version (`modified`) the central is known to hold of each record, by table and uid. */
  private readonly held = new Map<string, string>();
  /** The check-in uids received, and how often a file carried one it already held with the same version. */
  readonly checkins = new Set<string>();
  repeatsInOneFile = 0;
  private greetedAt = -Infinity;
  private pullCursor: string;
  private pushCursor: string;

  constructor(
    readonly name: string,
    private readonly base: string,
    private readonly eventId: number,
    private readonly key: string,
    private readonly snapshot: Snapshot,
  ) {
    this.pullCursor = snapshot.cursor;
    this.pushCursor = snapshot.cursor;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Token ${this.key}`, accept: 'application/json, */*', ...extra };
  }

  /** A scan at this laptop's own door: a check-in and its guest stamped, both to be pushed. */
  scan(barcode: string, uid: string): void {
    const guest = this.snapshot.guestsByBarcode.get(barcode);
    if (!guest) throw new Error(`no guest ${barcode} in the snapshot`);
    const now = nowIso();
    const held = (this.changed.get(`guests:${guest.uid}`)?.record ?? guest) as FileRecord;
    this.changed.set(`guests:${guest.uid}`, { table: 'guests', record: { ...held, checked_in_at: now, modified: now } });
    this.changed.set(`checkins:${uid}`, {
      table: 'checkins',
      record: { uid, created: now, modified: now, direction: 'in', scanned_at: now, station: this.name, undone_at: null, guest_uid: guest.uid, session_uid: null },
    });
    this.checkins.add(uid);
  }

  /** One cycle: pull, greet, push (when something changed within the overlap). */
  async cycle(): Promise<CycleTimes> {
    const started = performance.now();
    const pulled = await this.pull();
    const pullMs = performance.now() - started;
    // As server/sync/follower.ts greetDue: every quarter of DOORLIST_VENUE_PROBE_S (10 s shipped).
    if (performance.now() - this.greetedAt >= GREET_EVERY_MS) {
      this.greetedAt = performance.now();
      await this.greet();
    }
    const pushStarted = performance.now();
    const pushed = await this.push();
    const end = performance.now();
    const times = { cycleMs: end - started, pullMs, pulledRecords: pulled };
    if (pushed && 'refused' in pushed) return { ...times, pushedRecords: 0, conflicts: 0, refused: pushed.refused };
    return { ...times, pushMs: pushed ? end - pushStarted : undefined, pushedRecords: pushed?.records ?? 0, conflicts: pushed?.conflicts ?? 0 };
  }

  /** `since`: as `push`'s. Answers the records pulled. */
  async pull(since = before(this.pullCursor, OVERLAP_MS)): Promise<number> {
    const url = new URL(`${this.base}/events/${this.eventId}/sync/changes?since=${encodeURIComponent(since)}`);
    const res = await send(this.agent, url, { method: 'GET', headers: this.headers() });
    if (res.status !== 200) throw new Error(`${this.name}: pull answered ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
    const file = readPulled(res.body);
    if (file.header.event.uid !== this.snapshot.header.event.uid) throw new Error(`${this.name}: pulled another event`);
    const inFile = new Set<string>();
    for (const { table, record } of file.records) {
      if (table === 'events') continue;
      const id = `${table}:${record.uid}`;
      if (inFile.has(id)) this.repeatsInOneFile++;
      inFile.add(id);
      // The later `modified` wins, as the merge decides; a merge keeps the version it takes.
      const held = this.changed.get(id);
      if (!held || held.record.modified < record.modified) this.changed.set(id, { table, record });
      this.held.set(id, record.modified);
      if (table === 'checkins') this.checkins.add(record.uid);
    }
    this.pullCursor = String(res.headers[CURSOR_HEADER]);
    return file.records.length - 1;
  }

  /** The venue hello a follower sends after each pull: not sharing the LAN, so no address or fingerprint. */
  async greet(): Promise<void> {
    const url = new URL(`${this.base}/events/${this.eventId}/sync/venue`);
    const body = JSON.stringify({ name: this.name, url: null, fingerprint: null, event_id: this.eventId, epoch: 1, part: 'follower' });
    const res = await send(this.agent, url, { method: 'POST', headers: this.headers({ 'content-type': 'application/json' }), body });
    if (res.status !== 200) throw new Error(`${this.name}: venue hello answered ${res.status}`);
  }

  /**
   * `since`: what to send from (the push cursor less the overlap unless said); `resend`: what
   * the central holds too (a replay, as a catch-up sends), to time a push of the same records again.
   */
  async push(since = before(this.pushCursor, OVERLAP_MS), resend = false): Promise<{ records: number; conflicts: number } | { refused: 429 | 503 } | undefined> {
    const snapshot = nowIso();
    const due = [...this.changed.values()].filter((c) => c.record.modified >= since && (resend || this.held.get(`${c.table}:${c.record.uid}`) !== c.record.modified));
    if (due.length === 0) {
      this.pushCursor = snapshot;
      return undefined;
    }
    const body = await this.file(due, since);
    const url = new URL(`${this.base}/events/${this.eventId}/sync/changes`);
    const res = await send(this.agent, url, { method: 'POST', headers: this.headers({ 'content-type': EVENT_FILE_MEDIA_TYPE }), body });
    // A real follower shows `offline` for the cycle and keeps its cursor (server/sync/upstream.ts refusal).
    if (res.status === 429 || res.status === 503) return { refused: res.status };
    if (res.status !== 200) throw new Error(`${this.name}: push answered ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
    const found = JSON.parse(res.body.toString('utf8')) as { conflicts: unknown[] };
    for (const { table, record } of due) this.held.set(`${table}:${record.uid}`, record.modified);
    this.pushCursor = snapshot;
    return { records: due.length, conflicts: found.conflicts.length };
  }

  /** A delta event file as the follower's export writes it: the event record, then guests before check-ins. */
  private async file(due: { table: string; record: FileRecord }[], since: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    });
    const { header, eventRecord } = this.snapshot;
    const byTable = new Map<string, FileRecord[]>();
    for (const { table, record } of due) byTable.set(table, [...(byTable.get(table) ?? []), record]);
    const counts = Object.fromEntries(header.tables.map((t) => [t, t === 'events' ? 1 : (byTable.get(t)?.length ?? 0)]));
    const writer = new EventFileWriter(out);
    await writer.header({ station: this.name, exported_at: new Date().toISOString(), generator: 'Doorlist', event: header.event, group: header.group, since, tables: header.tables, counts });
    await writer.records('events', [eventRecord]);
    for (const table of header.tables) if (byTable.has(table)) await writer.records(table, byTable.get(table)!);
    await writer.finish();
    return Buffer.concat(chunks);
  }

  close(): void {
    this.agent.destroy();
  }
}
