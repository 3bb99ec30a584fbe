import type { Api } from '../api';
import type { OfflineGuestList } from '../offline-guest-list';
import type { QueuedItem } from '../scan-queue';
import type { LocalChange } from '../stats';
import type { Direction, GuestSummary, RegistrationType, ScanResult, ScanStatus, SessionSummary } from '../types';
import type { LogEntry } from './use-scan-log';

/** A scan the server (or the station, offline) let through: the counters and the copy follow it. */
export const ACCEPTED: ReadonlySet<ScanStatus | string> = new Set(['checked_in', 'checked_out']);

/** The guest's own attention, or their registration type's: the door stops for them. */
export function needsAttention(guest: GuestSummary | undefined, types: RegistrationType[]): boolean {
  if (!guest) return false;
  const typeId = typeof guest.registration_type === 'number' ? guest.registration_type : undefined;
  return guest.attention === true || guest.registration_type_attention === true || types.some((t) => t.id === typeId && t.attention);
}

export function typeIdOf(guest?: GuestSummary): number | undefined {
  const ref = guest?.registration_type;
  return typeof ref === 'number' ? ref : ref && typeof ref === 'object' ? ref.id : undefined;
}

/** What the scan pipeline's hooks read at the moment they act (kept in a ref: always the latest). */
export interface PipelineDeps {
  api: Api;
  eventId: number;
  station: string;
  nfcFallback: boolean;
  direction: Direction;
  session?: SessionSummary;
  types: RegistrationType[];
  /** The event's, so a spoken first entry is on its clock. */
  timezone: string;
  guestList?: OfflineGuestList;
  online: boolean;
  setReachable: (reachable: boolean) => void;
  log: { nextSerial: () => number; put: (entry: ScanResult) => void; update: (match: (e: LogEntry) => boolean, change: Partial<LogEntry>) => void };
  countStats: (change: Omit<LocalChange, 'at' | 'step' | 'expect'>) => void;
  forgetStats: (uid: string) => void;
  queue: { enqueue: (item: QueuedItem) => Promise<void>; flush: () => Promise<void>; withdraw: (uid: string) => Promise<boolean>; pending: number };
}
