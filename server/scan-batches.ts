import type { Db } from '../db/knex';
import { recordEventDoorScans, type BatchScan, type ScanOutcome } from '../db/repositories/checkins';
import { groupCommit } from './group-commit';

/**
 * Group commit for event-door scans: a scan that arrives while the writer is busy waits, and
 * everything that waited is decided together in one transaction (recordEventDoorScans). If
 * that transaction fails, nothing of it was written and its scans are run again one by one,
 * so one bad scan never takes the others down.
 */
export function scanBatches(db: Db): (scan: BatchScan, alone: () => Promise<ScanOutcome>) => Promise<ScanOutcome> {
  return groupCommit<BatchScan, ScanOutcome>(db, recordEventDoorScans);
}
