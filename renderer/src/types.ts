/** The API shapes the door screen reads (DESIGN "Check-in API" and the spec). */
export interface EventSummary {
  id: number;
  name: string;
  starts?: string;
  ends?: string;
  timezone?: string;
}

export interface RegistrationType {
  id: number;
  name: string;
}

export interface SessionSummary {
  id: number;
  name: string;
  starts?: string;
  ends?: string;
  access_control?: boolean;
  auto_registration?: boolean;
  capacity?: number;
  overbook_capacity?: number;
  hidden_session?: boolean;
}

/** The guest as a check-in answer or the guest list gives it. */
export interface GuestSummary {
  id: number;
  first_name: string;
  last_name: string;
  email?: string | null;
  company?: string | null;
  registration_type?: number | { id: number; name?: string } | string | null;
  barcode?: string | null;
  nfc_tag?: string | null;
  objstatus?: string | number;
  checked_in?: boolean;
  checked_in_at?: string | null;
}

export type ScanStatus =
  | 'checked_in'
  | 'checked_out'
  | 'already_checked_in'
  | 'not_checked_in'
  | 'not_found'
  | 'inactive'
  | 'not_registered'
  | 'session_full';

export type CodeKind = 'barcode' | 'nfc_tag' | 'guest_id';
export type Direction = 'in' | 'out';

/** What one scan turned into, on screen. `queued`: stored until the server answers again. */
export interface ScanResult {
  /** `checking`: sent, no answer yet (only in the list of recent scans). */
  outcome: ScanStatus | 'queued' | 'refused' | 'undone' | 'checking';
  /** The typed or scanned code, or the guest's name when checked in from a list. */
  code: string;
  guest?: GuestSummary;
  checkinId?: number;
  checkedInAt?: string | null;
  scannedAt?: string;
  message?: string;
  sessionName?: string;
  replayed?: boolean;
  /** The scan's client uid, so its queued entry can be matched with its replayed answer. */
  uid?: string;
  /** Increments per result so the same answer twice still flashes. */
  serial: number;
}
