import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';

type Row = Record<string, unknown>;

/**
 * A merge's changes, kept on disk between checking them and applying them (one JSON line
 * each, in file order), so a large merge holds no more in memory than one batch. The file
 * is readable by this user only and removed by `close`.
 */
export class StagedChanges {
  private readonly file = path.join(os.tmpdir(), `doorlist-merge-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.ndjson`);
  private out: fs.WriteStream | undefined;
  /** The file's write failure (a full disk), thrown by the next push or read rather than crashing the process. */
  private failure: Error | undefined;

  /** Nothing was pushed: the merge has no change to apply. */
  get empty(): boolean {
    return this.out === undefined;
  }

  async push(table: string, records: Row[]): Promise<void> {
    if (!this.out) {
      this.out = fs.createWriteStream(this.file, { mode: 0o600 });
      this.out.on('error', (err) => (this.failure ??= err));
    }
    this.throwIfFailed();
    let chunk = '';
    for (const record of records) chunk += JSON.stringify([table, record]) + '\n';
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  /** The changes in the order they were pushed, consecutive ones of a table together, `size` at most at a time. */
  async *batches(size: number): AsyncGenerator<{ table: string; records: Row[] }> {
    if (!this.out) return;
    this.throwIfFailed();
    this.out.end();
    await once(this.out, 'finish');
    let batch: { table: string; records: Row[] } | undefined;
    let rest = '';
    for await (const chunk of fs.createReadStream(this.file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() as string;
      for (const line of lines) {
        const [table, record] = JSON.parse(line) as [string, Row];
        if (batch && (batch.table !== table || batch.records.length >= size)) {
          yield batch;
          batch = undefined;
        }
        batch ??= { table, records: [] };
        batch.records.push(record);
      }
    }
    if (batch) yield batch;
  }

  async close(): Promise<void> {
    this.out?.destroy();
    await fs.promises.rm(this.file, { force: true });
  }
}
