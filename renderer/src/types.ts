/** The API shapes the door screen reads (DESIGN "Check-in API" and the spec). */
export interface EventSummary {
  id: number;
  name: string;
  group_id?: number;
  starts?: string;
  ends?: string;
  timezone?: string;
}

export interface RegistrationType {
  id: number;
  name: string;
  /** The door must stop for every guest of this type. */
  attention?: boolean;
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
  /** The door must stop for this guest (VIP, age check, access needs); `notes` say why. */
  attention?: boolean;
  notes?: string | null;
  /** In a scan's answer: the guest's registration type asks for attention. */
  registration_type_attention?: boolean;
  registration_type_name?: string;
  /** In a scan's answer: the guest's answers to questions marked show_at_door (meal, age check, size). */
  door_answers?: DoorAnswer[];
}

export interface DoorAnswer {
  question_id: number;
  question: string;
  answer: string;
}

/** The scan vocabulary is core's (core/scan.ts), shared with the server. */
import type { CheckinDirection, ScanStatus } from '../../core/scan';
export type { ScanStatus };

export type CodeKind = 'barcode' | 'nfc_tag' | 'guest_id';
export type Direction = CheckinDirection;

/** What one scan turned into, on screen. `queued`: stored until the server answers again. */
export interface ScanResult {
  /**
   * `checking`: sent, no answer yet (only in the scan log). `double_admission`: admitted here
   * offline, and the server says someone else had let the guest in first.
   */
  outcome: ScanStatus | 'queued' | 'refused' | 'undone' | 'checking' | 'double_admission';
  /** The typed or scanned code, or the guest's name when checked in from a list. */
  code: string;
  guest?: GuestSummary;
  checkinId?: number;
  checkedInAt?: string | null;
  /** The station of the first entry, on an amber. */
  checkedInStation?: string | null;
  scannedAt?: string;
  direction?: Direction;
  /** Decided by this station from its copy of the guest list, the server being out of reach. */
  offline?: boolean;
  message?: string;
  sessionName?: string;
  replayed?: boolean;
  /** The scan's client uid, so its queued entry can be matched with its replayed answer. */
  uid?: string;
  /** Increments per result so the same answer twice still flashes. */
  serial: number;
}

/** GET /events/:event_id/sync, as the server answers it (never the upstream key). */
export interface SyncStatus {
  sync_id: number;
  url: string;
  event_id: number;
  remote_event_id: number;
  state: 'ok' | 'offline' | 'error';
  error: string | null;
  /** The pinned fingerprint (AA:BB:...) of the upstream's certificate or authority; null: the system's trust. */
  fingerprint: string | null;
  last_pull_at: string | null;
  last_push_at: string | null;
  pending: number;
  /** All of them; the lists below hold the latest few (GET /events/:id/sync/double_admissions and /conflicts page the rest). */
  double_admissions_count: number;
  conflicts_count: number;
  double_admissions: {
    guest_id: number | null;
    guest_uid: string;
    first_name: string | null;
    last_name: string | null;
    checkins: { uid: string; station: string | null; scanned_at: string }[];
  }[];
  conflicts: { table: string; uid: string; kind: string; value: string | null; resolution: string }[];
  /** The venue epoch this laptop knows: 1 for a first follow, one more at each takeover. */
  epoch: number;
  /** The laptops of the venue this laptop knows, as its upstream answered them. */
  venue: VenueMember[];
  /** What the console shows about the venue (a takeover lost to another laptop); null for nothing. */
  venue_note: string | null;
}

/** A laptop of the event's venue as a screen shows it. */
export interface VenueMember {
  name: string;
  url: string;
  /** AA:BB:... */
  fingerprint: string;
  last_seen_at: string | null;
}

/** GET /events/:event_id/sync/venue: the event's venue on any laptop of it, its upstream included. */
export interface VenueView {
  part: 'upstream' | 'follower';
  epoch: number;
  upstream_url: string | null;
  note: string | null;
  venue: VenueMember[];
}
