/**
 * Conflicts, and double admissions, kept per event: enough for staff to read through, and a
 * bound on what an upstream (or a file) can make this laptop store. Past it the first ones stay.
 */
export const FINDINGS_KEPT = 1000;
