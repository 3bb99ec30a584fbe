import type { Db } from '../../db/knex';
import type { EventRow } from '../../db/repositories/events';
import { keepImportAlive } from '../../db/repositories/event-file-merge';
import type { GuestInsert } from '../../db/repositories/guests';
import type { GuestBatch } from '../../db/repositories/guest-inserts';
import { csvGuestBatch, discardCsvStaging, openCsvStaging, revealCsvGuests, stageCsvGuests } from '../../db/repositories/guests-csv';
import { MSG } from '../../core/messages';
import { NotFoundError } from '../../core/errors';

/**
 * Guests staged per transaction: short enough that a scan waiting behind one is not held long;
 * four times as many while no door is at work (LocalWrites.doorActive), as each commit writes
 * every index page it touched again.
 */
const STAGED_BATCH = 500;
const QUIET_STAGED_BATCH = 2000;

/**
 * Checked guests are written under a hidden event (db/repositories/guests-csv.ts) while the
 * rest of the file is still being read: a batch at a time, each in a short transaction of its
 * own, one in flight while the next is read and checked, so memory stays flat whatever the
 * file's size and the door's scans take turns with the writes. Nothing is seen until
 * `reveal`; after a refusal or a failure `discard` removes what was staged.
 */
export class CsvStager {
  private batch?: GuestBatch;
  private writing: Promise<void> = Promise.resolve();
  private stagingId?: Promise<number>;
  /** Stamps the hidden event while this import is alive, so no other import clears it. */
  private heartbeat?: { stop: () => Promise<void> };

  constructor(
    private readonly db: Db,
    private readonly event: EventRow,
    private readonly doorActive: () => boolean,
  ) {}

  async add(guest: GuestInsert): Promise<void> {
    this.stagingId ??= this.open();
    this.batch ??= csvGuestBatch(await this.stagingId, this.event.id);
    // Its row and terms are worked out now, between the reader's turns, while the batch before is written.
    this.batch.add(guest);
    if (this.batch.size >= (this.doorActive() ? STAGED_BATCH : QUIET_STAGED_BATCH)) await this.flush();
  }

  private async open(): Promise<number> {
    const id = await openCsvStaging(this.db, this.event);
    this.heartbeat = keepImportAlive(this.db, id);
    return id;
  }

  private async flush(): Promise<void> {
    if (!this.batch) return;
    const prepared = this.batch.prepared(this.db);
    this.batch = undefined;
    await this.writing;
    this.writing = stageCsvGuests(this.db, prepared);
    // A failure surfaces at the next flush or at reveal; it is not unhandled meanwhile.
    this.writing.catch(() => undefined);
  }

  /**
   * Moves everything staged into the event in one transaction. A code another guest took
   * meanwhile refuses its row (`refuse` throws the 400); then the move is tried again.
   */
  async reveal(refuse: () => Promise<void>): Promise<void> {
    await this.flush();
    await this.writing;
    if (!this.stagingId) return;
    const id = await this.stagingId;
    for (let attempt = 1; ; attempt++) {
      const outcome = await revealCsvGuests(this.db, id, this.event.id);
      if (outcome === 'revealed') return this.heartbeat?.stop();
      if (outcome === 'event-gone') throw new NotFoundError(MSG.eventNotFound);
      await refuse();
      // The code's holder was gone again by the time it was looked up: a few more tries.
      if (attempt === 3) throw new Error('a CSV import kept meeting codes taken by other writers');
    }
  }

  async discard(): Promise<void> {
    await this.writing.catch(() => undefined);
    const id = await this.stagingId?.catch(() => undefined);
    try {
      if (id !== undefined) await discardCsvStaging(this.db, id);
    } finally {
      await this.heartbeat?.stop();
    }
  }
}
