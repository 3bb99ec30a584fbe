import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { Response } from 'express';
import type { Logger } from 'pino';
import type { Db } from '../../db/knex';
import { recordPrints, type BadgeGuest, type PrintBy } from '../../db/repositories/badge-prints';
import { chunks } from '../../db/bulk';
import { BADGE_MSG, type BadgeSize } from '../../core/badges';
import { HttpError } from '../http/errors';
import { BadgeRenderError, BadgeRenderer, type RenderJob } from './renderer';
import { BADGE_RETRY_AFTER_S, BadgeSlotRefusal, BadgeSlots } from './slots';

/**
 * Sends a PDF of badges as the worker draws it, and records each page of guests printed once
 * its badges are in the PDF. The main thread only reads guests (a page at a time, outside any
 * transaction), hands them to the worker a part at a time and writes the bytes it answers, at
 * the pace the client reads: a scan never waits behind a sheet, and memory stays flat.
 */
export interface BadgeSheet {
  eventId: number;
  size: BadgeSize;
  title: string;
  fileName: string;
  /** Who asks (`key:<id>` or `user:<id>`): the unit of the per-caller bounds. */
  caller: string;
  /** The first page, read before the answer starts (so "no guest" can still be a 404), then the rest. */
  first: BadgeGuest[];
  rest: () => AsyncIterable<BadgeGuest[]>;
  by: PrintBy;
  /** Told after each recorded page (the sync follower pushes without waiting for its timer). */
  onRecorded: () => void;
}

/** The badge worker and the bounds on the requests it draws for. */
export class BadgePrinting {
  readonly slots: BadgeSlots;
  readonly renderer: BadgeRenderer;

  constructor(logger: Logger, options: { workerFile?: string; slots?: BadgeSlots } = {}) {
    this.renderer = new BadgeRenderer(logger, options.workerFile);
    this.slots = options.slots ?? new BadgeSlots();
  }

  close(): Promise<void> {
    return this.renderer.close();
  }
}

// Badges handed to the worker at once: another job's badge waits behind one part at most.
const DRAW_PART = 20;

export async function sendBadges(res: Response, db: Db, printing: BadgePrinting, sheet: BadgeSheet): Promise<void> {
  const gone = new AbortController();
  const onClose = () => gone.abort(new Error('the client went away'));
  res.once('close', onClose);
  try {
    const release = await takeSlot(printing.slots, sheet.caller, gone.signal, res);
    if (!release) return;
    try {
      await drawSheet(res, db, printing.renderer, sheet);
    } finally {
      release();
    }
  } finally {
    res.off('close', onClose);
  }
}

/** A slot, once free; undefined if the client left while waiting; the 429 or 503 past the bounds. */
async function takeSlot(slots: BadgeSlots, caller: string, signal: AbortSignal, res: Response): Promise<(() => void) | undefined> {
  try {
    return await slots.take(caller, signal);
  } catch (err) {
    if (signal.aborted) return undefined;
    if (!(err instanceof BadgeSlotRefusal)) throw err;
    res.setHeader('Retry-After', String(BADGE_RETRY_AFTER_S));
    if (err.reason === 'caller') {
      const mine = slots.counts(caller);
      throw new HttpError(429, { detail: BADGE_MSG.busyCaller(mine.running, mine.waiting) });
    }
    const all = slots.counts();
    throw new HttpError(503, { detail: BADGE_MSG.busyAll(all.running, all.waiting) });
  }
}

async function write(res: Response, bytes: Uint8Array): Promise<void> {
  if (bytes.length === 0 || res.destroyed) return;
  if (!res.write(bytes)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
}

/**
 * Opens the document and draws the first badges before answering: a worker that stops there
 * is started again and the document begun anew, once; a badge that cannot be drawn (or a
 * second stop) answers 422 with nothing printed.
 */
async function begin(renderer: BadgeRenderer, sheet: BadgeSheet, part: BadgeGuest[]): Promise<{ job: RenderJob; bytes: Uint8Array }> {
  for (let attempt = 1; ; attempt++) {
    const job = renderer.open(sheet.size, sheet.title);
    try {
      return { job, bytes: await job.draw(part) };
    } catch (err) {
      if (!(err instanceof BadgeRenderError)) throw err;
      if (!err.crashed || attempt >= 2) throw new HttpError(422, { detail: BADGE_MSG.notDrawn });
    }
  }
}

async function drawSheet(res: Response, db: Db, renderer: BadgeRenderer, sheet: BadgeSheet): Promise<void> {
  const [firstPart, ...firstRest] = chunks(sheet.first, DRAW_PART);
  const { job, bytes } = await begin(renderer, sheet, firstPart);
  let ended = false;
  try {
    res.status(200).type('application/pdf').setHeader('Content-Disposition', `inline; filename="${sheet.fileName}"`);
    await write(res, bytes);
    const print = async (page: BadgeGuest[], parts: BadgeGuest[][]): Promise<boolean> => {
      for (const part of parts) {
        if (res.destroyed) return false;
        await write(res, await job.draw(part));
      }
      if (res.destroyed) return false;
      await recordPrints(db, sheet.eventId, page.map((g) => g.id), sheet.by);
      sheet.onRecorded();
      return true;
    };
    if (await print(sheet.first, firstRest)) {
      for await (const page of sheet.rest()) if (!(await print(page, chunks(page, DRAW_PART)))) break;
    }
    if (res.destroyed) return;
    const last = await job.end();
    ended = true;
    res.end(last);
    await finished(res).catch(() => undefined);
  } finally {
    if (!ended) job.drop();
  }
}
