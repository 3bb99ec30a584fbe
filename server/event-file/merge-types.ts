import type { Conn, Trx } from '../../db/knex';
import type { GroupScope } from '../../db/repositories/groups';
import type { TableCounts } from '../../db/repositories/event-file-export';
import type { ArrivalVia } from '../../db/repositories/sync';
import { ValidationError } from '../../core/errors';
import { MSG } from '../../core/messages';
import type { DoubleAdmission } from './door-state';
import type { GroupRecord } from './tables';

/** What an import of an event file is asked and answers (merge.ts), and its refusal. */

/** The file is refused as a whole; nothing it brought stays. */
export class EventFileRejected extends ValidationError {
  constructor(reason: string) {
    super({ detail: MSG.eventFileInvalid(reason) });
  }
}

export interface ImportConflict {
  table: string;
  uid: string;
  kind: 'barcode' | 'nfc_tag' | 'code' | 'other_event' | 'setup_change';
  value?: string;
  existing_id?: number;
  existing_uid?: string;
  resolution: string;
  guest?: { uid: string; first_name: string; last_name: string };
  existing_guest?: { id: number; uid: string; first_name: string; last_name: string };
}

export interface ImportResult {
  event_id: number;
  event_created: boolean;
  /** The event's group here. */
  group_id: number;
  /** The group was made from the file (an administrator's import into a laptop that lacked it). */
  group_created: boolean;
  created: TableCounts;
  updated: TableCounts;
  unchanged: TableCounts;
  skipped: TableCounts;
  /** Answers, tags and links removed because the later version of their record lacks them. */
  deleted: TableCounts;
  checkins_added: number;
  conflicts: ImportConflict[];
  double_admissions: DoubleAdmission[];
}

export interface ImportOptions {
  /** Groups the caller may see (`null`: all, an administrator). */
  scope: GroupScope;
  /** Where a new event goes. Without it an administrator's new event goes into the file's group. */
  groupId?: number;
  /** The event's group as the file carries it (its header). */
  group?: GroupRecord;
  /**
   * False for a door role (DESIGN "Identity"): only check-ins, undos and new guests (with
   * their answers) are taken; every other change is listed as a conflict and not applied,
   * and a file of an event not here is refused. Default true.
   */
  allowSetupChanges?: boolean;
  /** How long to wait for another import of the same event (IMPORT_WAIT_MS when unset; tests set it shorter). */
  waitMs?: number;
  /**
   * Whether a door is writing to this database now (LocalWrites.doorActive). A new event's rows
   * go in short transactions, so a scan never waits long behind one, unless this answers false:
   * then a batch's rows go in one, the next batch is made ready while it is written, and the
   * import takes about two thirds of the time.
   * Default: a door may be at work.
   */
  doorActive?: () => boolean;
  /**
   * Where a merge reads while it checks (a read connection of the same database, e.g. the
   * server's), so the checks take nothing from the writer the door uses. Default: the writer.
   */
  reader?: Conn;
  /**
   * How the file came (default 'push': an import, or a follower's push to this server; 'pull':
   * what this server's follower fetched from its upstream). A merge that changes anything
   * notes it in its own transaction (sync_arrivals), so the deltas that followers pull, and
   * this laptop's own push upstream, reach back for the file's changes older than their
   * cursors: check-ins carried in on a USB stick go on to the central server too.
   */
  arrival?: ArrivalVia;
  /**
   * The uid of the event the file must hold (a follower's pull, a push to one event): a file
   * whose event record is another event's is refused whole, before anything is written.
   */
  eventUid?: string;
  /**
   * Runs inside the transaction that makes the import visible, with its result: what must
   * commit with the merge or not at all (a follower's conflicts, double admissions, cursor).
   */
  withinCommit?: (trx: Trx, result: ImportResult) => Promise<void>;
}
