import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'express';
import type { Db } from '../../db/knex';
import { recordPrints, type BadgeGuest, type PrintBy } from '../../db/repositories/badge-prints';
import type { BadgeSize } from '../../core/badges';
import { badgeDocument } from './render';

/**
 * Sends a PDF of badges as it is drawn, and records each page of guests printed once its
 * badges are in the PDF. Guests come a page at a time (`pages`), read outside any
 * transaction. After each badge the event loop is left free for half the CPU time the badge
 * took (a sheet takes at most two thirds of it), and whenever the client reads slower than
 * badges are drawn: a scan at the door never waits behind a large sheet, and memory stays
 * flat whatever its length.
 */
export interface BadgeSheet {
  eventId: number;
  size: BadgeSize;
  title: string;
  fileName: string;
  /** The first page, read before the answer starts (so "no guest" can still be a 404), then the rest. */
  first: BadgeGuest[];
  rest: () => AsyncIterable<BadgeGuest[]>;
  by: PrintBy;
  /** Told after each recorded page (the sync follower pushes without waiting for its timer). */
  onRecorded: () => void;
}

export async function sendBadges(res: Response, db: Db, sheet: BadgeSheet): Promise<void> {
  const { doc, add } = badgeDocument(sheet.size, sheet.title);
  res.status(200).type('application/pdf').setHeader('Content-Disposition', `inline; filename="${sheet.fileName}"`);
  doc.pipe(res);
  // A single badge is answered at once; only a sheet shares the event loop.
  const paced = sheet.first.length > 1;
  const print = async (guests: BadgeGuest[]): Promise<boolean> => {
    for (const guest of guests) {
      if (res.destroyed) return false;
      // CPU time, not wall time: on a busy machine the pause stays what the badge cost.
      const started = process.cpuUsage();
      add(guest);
      const { user, system } = process.cpuUsage(started);
      const drawing = (user + system) / 1000;
      if (res.writableNeedDrain) await Promise.race([once(res, 'drain'), once(res, 'close')]);
      if (paced) await sleep(drawing / 2);
    }
    await recordPrints(db, sheet.eventId, guests.map((g) => g.id), sheet.by);
    sheet.onRecorded();
    return true;
  };
  if (await print(sheet.first)) {
    for await (const page of sheet.rest()) if (!(await print(page))) break;
  }
  doc.end();
  await finished(res).catch(() => undefined);
}
