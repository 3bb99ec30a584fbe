import type { Logger } from 'pino';
import type { Db, Trx } from '../../db/knex';
import { writeTransaction } from '../../db/write-transaction';

/** One answer per item: what the item gets back, or the error it is refused with. */
export type Decide<In, Out> = (trx: Trx, items: In[]) => Promise<(Out | Error)[]>;

export interface GroupCommitOptions {
  /** What the batches are of, for the log line of a batch that failed. */
  name: string;
  logger: Logger;
  /** Runs an item's own transaction again where the database asks for it (a scan's uid race). */
  retry?: <T>(run: () => Promise<T>) => Promise<T>;
}

interface Waiting<In, Out> {
  item: In;
  resolve: (out: Out) => void;
  reject: (error: unknown) => void;
}

// Enough to amortise a batch's statements; small enough that one batch's statements stay short.
const MAX_BATCH = 256;

/**
 * Group commit, the one path of a write: an item that arrives while the writer is busy waits,
 * and everything that waited is decided together in one write transaction by `decide`, which
 * answers each item; a lone item is a batch of one through the same `decide`. If a batch's
 * transaction fails, nothing of it was written: the failure is logged, then each item runs
 * again as a batch of its own, so one bad item never takes the others down.
 */
export function groupCommit<In, Out>(db: Db, decide: Decide<In, Out>, options: GroupCommitOptions) {
  const retry = options.retry ?? ((run) => run());
  let waiting: Waiting<In, Out>[] = [];
  let running = false;

  const inTransaction = (items: In[]) => writeTransaction(db, (trx) => decide(trx, items));

  /** Settles each waiting item with its answer. */
  function settle(batch: Waiting<In, Out>[], answers: (Out | Error)[]): void {
    batch.forEach((w, i) => {
      const answer = answers[i];
      if (answer instanceof Error) w.reject(answer);
      else w.resolve(answer);
    });
  }

  async function runAlone(w: Waiting<In, Out>): Promise<void> {
    try {
      settle([w], await retry(() => inTransaction([w.item])));
    } catch (err) {
      w.reject(err);
    }
  }

  async function runBatch(batch: Waiting<In, Out>[]): Promise<void> {
    let answers: (Out | Error)[];
    try {
      answers = batch.length === 1 ? await retry(() => inTransaction([batch[0].item])) : await inTransaction(batch.map((w) => w.item));
    } catch (err) {
      // A batch of one failed as the item's own: its error is its answer.
      if (batch.length === 1) return batch[0].reject(err);
      options.logger.warn({ err, batch: options.name, items: batch.length }, 'a batch failed and wrote nothing; its items run one by one');
      for (const w of batch) await runAlone(w);
      return;
    }
    // The batch has committed. Its answers are sent on the loop's next turn, once the next
    // batch's transaction has begun: sending them is main-thread work that would otherwise sit
    // between two transactions, the writer idle.
    setImmediate(() => settle(batch, answers));
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

  return function submit(item: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!running) void drain();
    });
  };
}
