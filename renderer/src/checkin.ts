import { detailOf, type Api, type ApiAnswer, type RequestOptions } from './api';
import type { CodeKind, Direction, GuestSummary, ScanResult, ScanStatus } from './types';

/** One scan as sent: the client uid makes a replay of it harmless. */
export interface ScanSend {
  uid: string;
  kind: CodeKind;
  code: string;
  nfcFallback: boolean;
  direction: Direction;
  sessionId?: number;
  sessionName?: string;
  scannedAt: string;
  station: string;
  /** What the screen calls this scan (the guest's name when checked in from a list). */
  label?: string;
}

const CODE_FIELDS = ['barcode', 'nfc_tag'];

const STATUSES: readonly ScanStatus[] = [
  'checked_in',
  'checked_out',
  'already_checked_in',
  'not_checked_in',
  'not_found',
  'inactive',
  'not_registered',
  'session_full',
];

// The NFC retry of a code gets its own uid (the barcode attempt's answer is kept under the
// first), derived from it so a replayed queue entry retries under the same one again.
const NFC_UID_SUFFIX = '-nfc';
const CASE_UID_SUFFIX = '-case';

function bodyOf(scan: ScanSend, kind: CodeKind, code: string, uid: string) {
  return {
    [kind]: kind === 'guest_id' ? Number(code) : code,
    uid,
    scanned_at: scan.scannedAt,
    station: scan.station,
    direction: scan.direction,
    ...(scan.sessionId ? { session_id: scan.sessionId } : {}),
  };
}

/** Every letter in the other case: what a keyboard-wedge reader types while Caps Lock is on. */
export function swapCase(code: string): string {
  return code.replace(/\p{L}/gu, (ch) => (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase()));
}

const isNotFound = (answer: ApiAnswer) => answer.status === 404 && (answer.body as { status?: string })?.status === 'not_found';

/**
 * POSTs the scan. With `exact`, once: the station's guest list named the form in which the
 * server knows the code, or knows nobody with it. Otherwise a barcode nobody has is tried again
 * as an NFC tag (keyboard-wedge barcode and NFC readers both just type), then both again with
 * the letters' case swapped (a reader typing with Caps Lock on, or a code typed by hand in lower
 * case). Throws OfflineError when the server cannot be reached.
 */
export async function sendScan(api: Api, eventId: number, scan: ScanSend, options: RequestOptions & { exact?: boolean } = {}): Promise<ApiAnswer> {
  const { exact, ...requestOptions } = options;
  const path = `/events/${eventId}/checkins`;
  const attempt = async (code: string, uid: string): Promise<ApiAnswer> => {
    const answer = await api.request('POST', path, bodyOf(scan, scan.kind, code, uid), requestOptions);
    if (!exact && isNotFound(answer) && scan.kind === 'barcode' && scan.nfcFallback) return api.request('POST', path, bodyOf(scan, 'nfc_tag', code, uid + NFC_UID_SUFFIX), requestOptions);
    return answer;
  };
  const first = await attempt(scan.code, scan.uid);
  const swapped = swapCase(scan.code);
  if (exact || !isNotFound(first) || scan.kind === 'guest_id' || swapped === scan.code) return first;
  const second = await attempt(swapped, scan.uid + CASE_UID_SUFFIX);
  // Still nobody: the answer names the code as it was typed.
  return isNotFound(second) ? first : second;
}

/** The server's answer as the screen shows it. */
export function resultOf(answer: ApiAnswer, scan: Pick<ScanSend, 'code' | 'label' | 'sessionName' | 'scannedAt' | 'direction' | 'uid'>, serial: number): ScanResult {
  const body = (answer.body && typeof answer.body === 'object' ? answer.body : {}) as Record<string, any>;
  const base = { code: scan.label ?? scan.code, sessionName: scan.sessionName, scannedAt: scan.scannedAt, direction: scan.direction, uid: scan.uid, serial };
  const status = STATUSES.includes(body.status) ? (body.status as ScanStatus) : undefined;
  if (answer.status === 201 && status) {
    return { ...base, outcome: status, guest: body.guest as GuestSummary, checkinId: body.id, scannedAt: body.scanned_at ?? scan.scannedAt };
  }
  if (status) {
    return {
      ...base,
      outcome: status,
      guest: body.guest as GuestSummary | undefined,
      checkedInAt: body.checked_in_at ?? null,
      checkedInStation: body.checked_in_station ?? null,
      message: body.details,
    };
  }
  // A code the server will not even look up (two scans run together, a stray long barcode):
  // for the door that is simply nobody's code.
  const fields = Object.keys(body);
  if (answer.status === 400 && fields.length > 0 && fields.every((f) => CODE_FIELDS.includes(f))) {
    return { ...base, outcome: 'not_found', message: detailOf(body) };
  }
  return { ...base, outcome: 'refused', message: detailOf(answer.body) ?? `The server answered ${answer.status}.` };
}
