import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { BadgeSize } from '../../core/badges';
import type { BadgeGuest } from '../../db/repositories/badge-prints';
import type { FromWorker, ToWorker } from './worker';

/** A badge job that could not be drawn: its worker stopped (`crashed`) or a badge failed to draw. */
export class BadgeRenderError extends Error {
  constructor(
    message: string,
    readonly crashed: boolean,
  ) {
    super(message);
  }
}

/** One PDF being drawn by the worker: parts of it drawn in turn, then ended (or dropped). */
export interface RenderJob {
  /** Draws these guests' badges; answers the PDF bytes written since the last answer. */
  draw(guests: BadgeGuest[]): Promise<Uint8Array>;
  /** Ends the PDF; answers its last bytes. */
  end(): Promise<Uint8Array>;
  /** Forgets the PDF (its client went away). */
  drop(): void;
}

/**
 * The worker file: the TypeScript source beside this one when running from source (tests,
 * `npm run dev`), else the bundle's `badge-worker.js` (electron-vite builds it as its own entry).
 */
export function defaultBadgeWorkerFile(): string {
  if (__filename.endsWith('.ts')) return path.join(__dirname, 'worker.ts');
  const candidates = [path.join(__dirname, 'badge-worker.js'), path.join(__dirname, '..', 'badge-worker.js')];
  return candidates.find((file) => fs.existsSync(file)) ?? candidates[0];
}

function startWorker(file: string): Worker {
  if (!file.endsWith('.ts')) return new Worker(file);
  // From source, the worker loads its TypeScript through tsx's own register API.
  const register = require.resolve('tsx/cjs/api');
  return new Worker(`require(${JSON.stringify(register)}).register(); require(${JSON.stringify(file)});`, { eval: true });
}

interface Pending {
  resolve: (bytes: Uint8Array) => void;
  reject: (err: BadgeRenderError) => void;
}

/**
 * The badge worker, started at the first badge (start-up never loads PDFKit or the fonts) and
 * again after it stops. Every job is a document open in the worker with at most one request
 * in flight; a worker that stops fails its jobs, and the next badge starts a new one.
 */
export class BadgeRenderer {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly logger: Logger,
    private readonly workerFile = defaultBadgeWorkerFile(),
  ) {}

  open(size: BadgeSize, title: string): RenderJob {
    const worker = this.running();
    const job = this.nextId++;
    worker.postMessage({ op: 'open', job, size, title } satisfies ToWorker);
    const ask = (message: ToWorker) =>
      new Promise<Uint8Array>((resolve, reject) => {
        if (this.worker !== worker) return reject(new BadgeRenderError('the badge worker stopped', true));
        this.pending.set(job, { resolve, reject });
        worker.postMessage(message);
      });
    return {
      draw: (guests) => ask({ op: 'draw', job, guests }),
      end: () => ask({ op: 'end', job }),
      drop: () => {
        this.pending.delete(job);
        if (this.worker === worker) worker.postMessage({ op: 'drop', job } satisfies ToWorker);
      },
    };
  }

  /** Stops the worker (the server is closing). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(this.workerFile);
    // An idle worker never keeps the process alive.
    worker.unref();
    worker.on('message', (message: FromWorker) => {
      const pending = this.pending.get(message.job);
      if (!pending) return;
      this.pending.delete(message.job);
      if (message.op === 'failed') pending.reject(new BadgeRenderError(message.message, false));
      else pending.resolve(message.bytes);
    });
    const stopped = (cause: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.logger.error({ cause }, 'the badge worker stopped; the next badge starts a new one');
      const failed = [...this.pending.values()];
      this.pending.clear();
      for (const p of failed) p.reject(new BadgeRenderError('the badge worker stopped', true));
    };
    worker.on('error', (err) => stopped(err.message));
    worker.on('exit', (code) => stopped(`exit ${code}`));
    this.worker = worker;
    return worker;
  }
}
