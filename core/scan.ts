/** The scan's vocabulary, shared by the rules, the database and the wire. */
export const CHECKIN_DIRECTIONS = ['in', 'out'] as const;
export type CheckinDirection = (typeof CHECKIN_DIRECTIONS)[number];

/** The `status` of every scan answer, as the door screen switches on it. */
export const SCAN_STATUS = {
  checkedIn: 'checked_in',
  checkedOut: 'checked_out',
  alreadyCheckedIn: 'already_checked_in',
  notCheckedIn: 'not_checked_in',
  notFound: 'not_found',
  inactive: 'inactive',
  sessionFull: 'session_full',
  notRegistered: 'not_registered',
} as const;
export type ScanStatus = (typeof SCAN_STATUS)[keyof typeof SCAN_STATUS];
