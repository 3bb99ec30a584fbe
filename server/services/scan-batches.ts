import type { Logger } from 'pino';
import type { Db } from '../../db/knex';
import { retryOnScanUidRace } from '../../db/repositories/scans';
import { recordScans, type ScanOutcome, type ScanRequest } from './scans';
import { groupCommit } from './group-commit';

/**
 * Every scan, at the event door or a session's, goes through here: scans that arrive while
 * the writer is busy are recorded together in one transaction (recordScans); a lone scan is a
 * batch of one. A failed batch is logged and its scans run again one by one, each retried
 * when another process stored its uid first (PostgreSQL).
 */
export function scanBatches(db: Db, logger: Logger): (scan: ScanRequest) => Promise<ScanOutcome> {
  return groupCommit<ScanRequest, ScanOutcome>(db, recordScans, { name: 'scans', logger, retry: retryOnScanUidRace });
}
