import { parse } from 'csv-parse/browser/esm/sync';
import { stringify } from 'csv-stringify/browser/esm/sync';

/** Guest fields a column can fill: the names the server's CSV import reads. */
export const TARGETS = ['first_name', 'last_name', 'email', 'registration_type', 'company', 'job_title', 'prefix', 'suffix', 'phone', 'cell_phone', 'work_phone', 'website', 'blog', 'barcode', 'nfc_tag', 'attention', 'notes'] as const;
/** A column's mapping: left to the server's reading of its header, or left out of the upload. */
export const AUTO = '';
export const IGNORE = '-';

/** A CSV file as picked, read in the browser. */
export interface Parsed {
  name: string;
  headers: string[];
  delimiter: string;
  /** Data records; records[i] is the spreadsheet's row i + 2 (row 1 is the header). */
  records: string[][];
}

/** The file's text as a header row and records, on the separator its header line uses. */
export function parseCsvFile(name: string, text: string): Parsed {
  const delimiter = delimiterOf(text);
  const [headers = [], ...records] = parse(text, { bom: true, relax_column_count: true, delimiter }) as string[][];
  return { name, headers: headers.map((h) => h.trim()), records, delimiter };
}

/** The separator a spreadsheet used: the header line's most frequent of , ; and tab. */
function delimiterOf(text: string): string {
  const header = text.split(/\r?\n/, 1)[0] ?? '';
  const counts = [',', ';', '\t'].map((d) => [d, header.split(d).length - 1] as const).sort((a, b) => b[1] - a[1]);
  return counts[0][1] > 0 ? counts[0][0] : ',';
}

/** The headers as sent: a column mapped by hand goes under its target's name. */
function sentHeaders(parsed: Parsed, mapping: string[]): { keep: number[]; header: string[] } {
  const keep = mapping.map((m, i) => (m === IGNORE ? -1 : i)).filter((i) => i >= 0);
  return { keep, header: keep.map((i) => (mapping[i] === AUTO ? parsed.headers[i] : mapping[i])) };
}

/** The file as the server will get it: columns renamed as mapped, ignored ones left out, bad rows dropped. */
export function buildCsv(parsed: Parsed, mapping: string[], skipRows: Set<number>): string {
  const { keep, header } = sentHeaders(parsed, mapping);
  const rows = parsed.records.filter((_, i) => !skipRows.has(i + 2)).map((record) => keep.map((i) => record[i] ?? ''));
  return stringify([header, ...rows]);
}

/** The header row alone, as CSV: what the server makes of each header by its name. */
export function headerCsv(parsed: Parsed): string {
  return stringify([parsed.headers]);
}

/** The server's errors name the columns as sent: back to the file's own headers. */
export function fileColumnOf(parsed: Parsed, mapping: string[]): (sent: string) => string {
  const { keep, header } = sentHeaders(parsed, mapping);
  const names = new Map(keep.map((i, k) => [header[k], parsed.headers[i]]));
  return (sent) => names.get(sent) ?? sent;
}

/** Rows with at least one cell filled: the rows an import reads. */
export function filledRows(parsed: Parsed): number {
  return parsed.records.filter((r) => r.some((cell) => cell.trim() !== '')).length;
}
