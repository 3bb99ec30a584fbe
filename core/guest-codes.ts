import type { FieldErrors } from './errors';
import { MSG } from './messages';

/**
 * A guest's barcode and NFC tag are each unique within its event: the one rule for every way a
 * guest comes or changes (POST and PUT, a walk-in, a CSV import, an event file merged or
 * synced). Who holds which code is read by db/repositories/guest-codes.ts; the unique indexes
 * stay the guarantee across processes, and their refusal is answered through this same rule.
 */

export const CODE_COLUMNS = ['barcode', 'nfc_tag'] as const;
export type CodeColumn = (typeof CODE_COLUMNS)[number];
export type GuestCodes = { readonly [C in CodeColumn]?: string | null };

/** A code of the guest that someone else holds. */
export interface CodeClash<H> {
  column: CodeColumn;
  code: string;
  holder: H;
}

/**
 * The codes an event's guests hold, as read, and those a batch claims as it goes; `H` is who
 * holds one (a guest's id, a CSV row, a stored guest). The first holder of a code keeps it.
 */
export class CodeHolders<H> {
  private readonly held: Record<CodeColumn, Map<string, H>> = { barcode: new Map(), nfc_tag: new Map() };

  hold(column: CodeColumn, code: string, holder: H): void {
    if (!this.held[column].has(code)) this.held[column].set(code, holder);
  }

  /** The codes held in a column, each with its holder. */
  entries(column: CodeColumn): IterableIterator<[string, H]> {
    return this.held[column].entries();
  }

  /** The guest's codes that someone else holds; `isSelf` tells a changed guest from the others. */
  clashes(guest: GuestCodes, isSelf: (holder: H) => boolean = () => false): CodeClash<H>[] {
    const out: CodeClash<H>[] = [];
    for (const column of CODE_COLUMNS) {
      const code = guest[column];
      if (!code || !this.held[column].has(code)) continue;
      const holder = this.held[column].get(code) as H;
      if (!isSelf(holder)) out.push({ column, code, holder });
    }
    return out;
  }

  /** The same codes, each holder told as `f` tells it. */
  map<K>(f: (holder: H) => K): CodeHolders<K> {
    const out = new CodeHolders<K>();
    for (const column of CODE_COLUMNS) for (const [code, holder] of this.held[column]) out.hold(column, code, f(holder));
    return out;
  }

  /** The guest's clashes; when there are none its codes are held for it, so the rest of a batch meets them. */
  claim(guest: GuestCodes, holder: H): CodeClash<H>[] {
    const clashes = this.clashes(guest);
    if (clashes.length === 0) for (const column of CODE_COLUMNS) if (guest[column]) this.hold(column, guest[column]!, holder);
    return clashes;
  }
}

/** A guest's API write: POST words the messages one way, PUT another (the spec's exact texts). */
export type CodeWording = 'create' | 'update';

/**
 * The spec's 400 for an API write whose codes other guests hold (the barcode's holder named by
 * id when known), or undefined when the codes are free.
 */
export function codeClashErrors(clashes: readonly CodeClash<number | undefined>[], wording: CodeWording): FieldErrors | undefined {
  if (clashes.length === 0) return undefined;
  const errors: FieldErrors = {};
  for (const { column, holder } of clashes) {
    if (column === 'barcode') {
      errors.barcode = [wording === 'create' ? MSG.barcodeExistsConflict : MSG.barcodeExists];
      if (holder !== undefined) errors.conflicted_guest_id = [String(holder)];
    } else errors.nfc_tag = [wording === 'create' ? MSG.nfcTagExists : MSG.nfcTagExistsOnUpdate];
  }
  return errors;
}

/** Who holds a code a CSV row brings: an earlier row of the file, or a guest the event has. */
export type CsvCodeHolder = { row: number } | 'event';

/** A CSV row's errors for its codes held elsewhere, under the file's own column names. */
export function csvCodeErrors(clashes: readonly CodeClash<CsvCodeHolder>[], nameOf: (field: CodeColumn) => string): FieldErrors | undefined {
  if (clashes.length === 0) return undefined;
  const errors: FieldErrors = {};
  for (const { column, code, holder } of clashes) errors[nameOf(column)] = [holder === 'event' ? MSG.csvCodeTaken(code) : MSG.csvCodeRepeated(code, holder.row)];
  return errors;
}

/**
 * What a merged event file does with a guest's code another guest here holds: a new guest whose
 * barcode is taken is skipped, one whose NFC tag is taken comes without it; a changed guest
 * keeps its own code.
 */
export function mergeCodeResolution(column: CodeColumn, guest: 'new' | 'changed'): { resolution: string; skipGuest: boolean } {
  if (guest === 'changed') return { resolution: `kept this guest's ${column}`, skipGuest: false };
  return column === 'barcode' ? { resolution: 'guest skipped', skipGuest: true } : { resolution: 'guest added without NFC tag', skipGuest: false };
}
