/**
 * SHA-256 certificate fingerprints as people compare them: shown `AA:BB:...` (as browsers and
 * Doorlist's own screen show them), taken in any case with or without colons and spaces, kept
 * as 64 lowercase hex digits.
 */

/** The fingerprint's 64 lowercase hex digits, or null when `text` is not one. */
export function parseFingerprint(text: string): string | null {
  const hex = text.replace(/[:\s]/g, '').toLowerCase();
  return /^[0-9a-f]{64}$/.test(hex) ? hex : null;
}

/** `AA:BB:...`, from the 64 hex digits. */
export function showFingerprint(hex: string): string {
  return hex.toUpperCase().replace(/(..)(?!$)/g, '$1:');
}
