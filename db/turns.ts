import type { Conn } from './knex';
import { dialectOf } from './dialect';

/**
 * How many rows a long job (a merge, its undo) does per write transaction, so each of its
 * transactions holds the writer for about `turnMs(db)` whatever the machine and its load: the
 * door's scans queue behind one turn at most. After each turn the size follows the time the
 * turn held the writer (halved or doubled at most), between `min` and `max`.
 */
export function turnMs(db: Conn): number {
  // SQLite has one writer: every scan waits for the turn under way. On PostgreSQL a scan waits
  // only when it writes a row the turn holds (a guest of the same event being changed), so
  // turns may be longer, and a merge's statements pay fewer turns' own costs.
  return dialectOf(db).name === 'sqlite' ? 40 : 200;
}

export class TurnPacer {
  private rows: number;

  constructor(
    private readonly min: number,
    private readonly max: number,
    private readonly turnMs: number,
  ) {
    this.rows = min;
  }

  /** Rows for the next turn. */
  get size(): number {
    return this.rows;
  }

  /** A turn of `rows` rows held the writer `ms` milliseconds. */
  record(rows: number, ms: number): void {
    const fits = Math.round((this.turnMs * Math.max(rows, 1)) / Math.max(ms, 0.1));
    const bounded = Math.min(this.rows * 2, Math.max(Math.floor(this.rows / 2), fits));
    this.rows = Math.max(this.min, Math.min(this.max, bounded));
  }

  /** Runs `work` in turns over `items`, `size` at a time; `work` answers how long its turn held the writer. */
  async inTurns<T>(items: T[], work: (part: T[]) => Promise<number>): Promise<void> {
    for (let i = 0; i < items.length; ) {
      const part = items.slice(i, i + this.rows);
      i += part.length;
      this.record(part.length, await work(part));
    }
  }
}
