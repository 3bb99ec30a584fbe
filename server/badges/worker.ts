import { parentPort } from 'node:worker_threads';
import type { BadgeSize } from '../../core/badges';
import type { BadgeGuest } from '../../db/repositories/badge-prints';
import { badgeDocument, type BadgeDocument } from './render';

/**
 * The badge worker: draws PDFs off the main thread, so a scan never waits behind a badge.
 * It holds the open documents of every job the pool runs and draws what it is asked, one
 * message at a time: jobs take turns a part of a sheet each. Each answer carries the PDF
 * bytes drawn since the last one (moved, not copied).
 */
export type ToWorker =
  | { op: 'open'; job: number; size: BadgeSize; title: string }
  | { op: 'draw'; job: number; guests: BadgeGuest[] }
  | { op: 'end'; job: number }
  | { op: 'drop'; job: number };

export type FromWorker = { op: 'drawn' | 'ended'; job: number; bytes: Uint8Array } | { op: 'failed'; job: number; message: string };

interface Open {
  document: BadgeDocument;
  chunks: Buffer[];
}

const open = new Map<number, Open>();
const port = parentPort!;

/** The bytes written since the last answer, joined in a buffer of their own (so it can be moved). */
function take(job: Open): Uint8Array {
  const bytes = new Uint8Array(job.chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of job.chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  job.chunks = [];
  return bytes;
}

function answer(message: FromWorker): void {
  port.postMessage(message, 'bytes' in message ? [message.bytes.buffer as ArrayBuffer] : []);
}

function handle(message: ToWorker): void {
  if (message.op === 'open') {
    const job: Open = { document: badgeDocument(message.size, message.title), chunks: [] };
    job.document.doc.on('data', (chunk: Buffer) => job.chunks.push(chunk));
    open.set(message.job, job);
    return;
  }
  const job = open.get(message.job);
  if (!job) {
    // A document whose opening failed: its next request is answered, never left waiting.
    if (message.op !== 'drop') answer({ op: 'failed', job: message.job, message: 'the document could not be opened' });
    return;
  }
  if (message.op === 'drop') {
    open.delete(message.job);
  } else if (message.op === 'draw') {
    for (const guest of message.guests) job.document.add(guest);
    // PDFKit writes a page when the next one starts (and at the end): what is drawn so far.
    answer({ op: 'drawn', job: message.job, bytes: take(job) });
  } else {
    job.document.doc.once('end', () => {
      open.delete(message.job);
      answer({ op: 'ended', job: message.job, bytes: take(job) });
    });
    job.document.doc.end();
  }
}

port.on('message', (message: ToWorker) => {
  try {
    handle(message);
  } catch (err) {
    // A badge that cannot be drawn fails its own job; the worker and the other jobs go on.
    open.delete(message.job);
    answer({ op: 'failed', job: message.job, message: err instanceof Error ? err.message : String(err) });
  }
});
