import type { Db, Trx } from '../db/knex';
import { writeTransaction } from '../db/write-transaction';

/** What `decide` answers for an item it leaves to the item's own transaction, after the batch commits. */
export const ALONE = Symbol('alone');

export type Decision<Out> = Out | Error | typeof ALONE;

interface Waiting<In, Out> {
  item: In;
  /** The item on its own, in a transaction of its own: the path a failed batch falls back to. */
  alone: () => Promise<Out>;
  resolve: (out: Out) => void;
  reject: (error: unknown) => void;
}

// Enough to amortise a batch's statements; small enough that one batch's statements stay short.
const MAX_BATCH = 256;

/**
 * Group commit: an item that arrives while the writer is busy waits, and everything that
 * waited is decided together in one transaction (`decide`, set-based statements; one answer
 * per item, in order). An item `decide` leaves ALONE (a refusal whose exact answer the single
 * path knows, a clash with another item of the batch) runs by itself after the batch has
 * committed, so it sees what the batch wrote. If the batch's transaction fails, nothing of it
 * was written and every item runs alone, one by one: one bad item never takes the others down.
 */
export function groupCommit<In, Out>(db: Db, decide: (trx: Trx, items: In[]) => Promise<Decision<Out>[]>) {
  let waiting: Waiting<In, Out>[] = [];
  let running = false;

  async function runBatch(batch: Waiting<In, Out>[]): Promise<void> {
    let answers: Decision<Out>[];
    try {
      answers = await writeTransaction(db, (trx) => decide(trx, batch.map((w) => w.item)));
    } catch {
      answers = batch.map(() => ALONE);
    }
    const settled: (() => void)[] = [];
    const alone: Waiting<In, Out>[] = [];
    for (const [i, w] of batch.entries()) {
      const answer = answers[i];
      if (answer === ALONE) alone.push(w);
      else if (answer instanceof Error) settled.push(() => w.reject(answer));
      else settled.push(() => w.resolve(answer));
    }
    // The batch has committed. Its answers are sent on the loop's next turn, once the next
    // transaction (an item's left alone, or the next batch's) has begun: sending them is
    // main-thread work that would otherwise sit between two transactions, the writer idle.
    setImmediate(() => settled.forEach((settle) => settle()));
    for (const w of alone) await w.alone().then(w.resolve, w.reject);
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

  return function submit(item: In, alone: () => Promise<Out>): Promise<Out> {
    return new Promise((resolve, reject) => {
      waiting.push({ item, alone, resolve, reject });
      if (!running) void drain();
    });
  };
}
