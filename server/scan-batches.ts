import type { Db } from '../db/knex';
import { recordEventDoorScans, type BatchScan, type ScanOutcome } from '../db/repositories/checkins';

// Enough to amortise a batch's statements; small enough that one batch's statements stay short.
const MAX_BATCH = 256;

interface Waiting {
  scan: BatchScan;
  /** The scan on its own, in a transaction of its own: the path a failed batch falls back to. */
  alone: () => Promise<ScanOutcome>;
  resolve: (outcome: ScanOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for event-door scans: a scan that arrives while the writer is busy waits, and
 * everything that waited is decided together in one transaction (recordEventDoorScans). If
 * that transaction fails, nothing of it was written and its scans are run again one by one,
 * so one bad scan never takes the others down.
 */
export function scanBatches(db: Db) {
  let waiting: Waiting[] = [];
  let running = false;

  async function runBatch(batch: Waiting[]): Promise<void> {
    try {
      const answers = await db.transaction((trx) => recordEventDoorScans(trx, batch.map((w) => w.scan)));
      batch.forEach((w, i) => {
        const answer = answers[i];
        if (answer instanceof Error) w.reject(answer);
        else w.resolve(answer);
      });
    } catch {
      for (const w of batch) await w.alone().then(w.resolve, w.reject);
    }
  }

  async function drain(): Promise<void> {
    running = true;
    while (waiting.length > 0) {
      const batch = waiting.slice(0, MAX_BATCH);
      waiting = waiting.slice(MAX_BATCH);
      await runBatch(batch);
    }
    running = false;
  }

  return function scan(scan: BatchScan, alone: () => Promise<ScanOutcome>): Promise<ScanOutcome> {
    return new Promise((resolve, reject) => {
      waiting.push({ scan, alone, resolve, reject });
      if (!running) void drain();
    });
  };
}
