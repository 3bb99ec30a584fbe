import fs from 'node:fs';
import type { DestinationStream } from 'pino';

/** Lines waiting for a slow destination past this many bytes are dropped rather than held. */
export const LOG_BACKLOG_BYTES = 4 * 1024 * 1024;
// A pipe that is full for now (EAGAIN) is tried again after this long.
const BUSY_RETRY_MS = 50;

type Note = (text: string) => void;

/** Writes to stderr and never throws: what is said when the log itself fails has nowhere else to go. */
export function noteOnStderr(text: string): void {
  try {
    fs.writeSync(2, text);
  } catch {
    // stderr is gone too: nothing is left to tell.
  }
}

/**
 * The log's destination (a file descriptor, stdout unless told): lines are written in the
 * background and a write that fails drops its lines, counted, rather than being retried. pino's
 * own destination retries a failed synchronous flush every 100 ms for ever: with the disk full,
 * the fatal line held the process, answering nothing and deaf to SIGTERM. Here nothing waits on
 * the log: the first failure is said on stderr with its cause, and when lines go through again
 * the log says how many were dropped. `flushSync` (pino calls it after a fatal line) tries
 * once and never sleeps.
 */
export class SafeDestination implements DestinationStream {
  /** Lines dropped since the process started. */
  dropped = 0;
  private droppedSinceFailure = 0;
  private failure: string | undefined;
  private pending: string[] = [];
  private pendingBytes = 0;
  private writing = false;

  constructor(
    private readonly fd = 1,
    private readonly note: Note = noteOnStderr,
    private readonly backlogBytes = LOG_BACKLOG_BYTES,
  ) {}

  write(line: string): void {
    if (this.pendingBytes + line.length > this.backlogBytes) return this.drop(1);
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (!this.writing) this.writeNext();
  }

  flushSync(): void {
    const lines = this.take();
    if (lines.length === 0) return;
    try {
      const data = Buffer.from(lines.join(''));
      for (let at = 0; at < data.length; ) at += fs.writeSync(this.fd, data, at);
      this.recovered();
    } catch (err) {
      this.failed(err, lines.length);
    }
  }

  private take(): string[] {
    const lines = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    return lines;
  }

  private writeNext(): void {
    const lines = this.take();
    if (lines.length === 0) return;
    this.writing = true;
    this.writeBuffer(Buffer.from(lines.join('')), lines.length);
  }

  private writeBuffer(data: Buffer, lines: number): void {
    fs.write(this.fd, data, 0, data.length, null, (err, written) => {
      if (err?.code === 'EAGAIN' || err?.code === 'EBUSY') {
        setTimeout(() => this.writeBuffer(data, lines), BUSY_RETRY_MS).unref();
        return;
      }
      if (err) this.failed(err, lines);
      else if (written < data.length) return this.writeBuffer(data.subarray(written), lines);
      else this.recovered();
      this.writing = false;
      this.writeNext();
    });
  }

  private drop(lines: number): void {
    this.dropped += lines;
    this.droppedSinceFailure += lines;
  }

  private failed(err: unknown, lines: number): void {
    this.drop(lines);
    if (this.failure !== undefined) return;
    this.failure = (err as NodeJS.ErrnoException)?.code ?? String(err);
    this.note(`Doorlist's log cannot be written (${this.failure}): its lines are dropped, and counted, until it can.\n`);
  }

  private recovered(): void {
    if (this.failure === undefined) return;
    const dropped = this.droppedSinceFailure;
    this.failure = undefined;
    this.droppedSinceFailure = 0;
    const text = `Doorlist's log can be written again; ${dropped} lines were dropped meanwhile.`;
    this.note(`${text}\n`);
    this.write(`${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, dropped, msg: text })}\n`);
  }
}

/** stdout, the server's log unless told otherwise: one writer for the log and the ready line alike. */
export const stdoutDestination = new SafeDestination(1);
// What is still waiting when the process ends is written then (or dropped, never waited for).
process.once('exit', () => stdoutDestination.flushSync());

/** A line for whoever started the process (the ready line), on stdout, through the same safe writer. */
export function printLine(text: string): void {
  stdoutDestination.write(`${text}\n`);
}
