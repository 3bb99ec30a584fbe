import { nowIso } from '../core/time';
import { newUid } from '../core/uid';

/** The columns every new record starts with. */
export function newRecord(now: string = nowIso()): { uid: string; created: string; modified: string } {
  return { uid: newUid(), created: now, modified: now };
}

/** SQLite booleans come back as 0/1. */
export function toBool(value: unknown): boolean {
  return value === 1 || value === true || value === '1';
}
