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

interface DriverError {
  code?: string;
  message?: string;
}

/** True when the error is a unique-constraint failure that names `column`. */
export function isUniqueViolation(err: unknown, column?: string): boolean {
  const e = err as DriverError;
  const message = e?.message ?? '';
  const unique = (e?.code === 'SQLITE_CONSTRAINT' && message.includes('UNIQUE')) || (e as { code?: string })?.code === '23505';
  return unique && (column === undefined || message.includes(column));
}

/** True when the database refused a row for a CHECK or foreign-key rule. */
export function isIntegrityViolation(err: unknown): boolean {
  const e = err as DriverError;
  return e?.code === 'SQLITE_CONSTRAINT' || e?.code === '23514' || e?.code === '23503';
}
