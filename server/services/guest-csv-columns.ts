import type { CsvQuestion } from '../../db/repositories/guests-csv';

/** Guest fields in export order; an import reads them by these labels or by the API's names. */
export const FIELD_COLUMNS = ['first_name', 'last_name', 'email', 'prefix', 'suffix', 'phone', 'cell_phone', 'company', 'job_title', 'work_phone', 'blog', 'website', 'barcode', 'nfc_tag', 'registration_type', 'attention', 'notes'] as const;
export type Field = (typeof FIELD_COLUMNS)[number];

/** Each field's column header as a person writes it: the export's, and an error's name for a field the file lacks. */
export const FIELD_LABELS: Record<Field, string> = {
  first_name: 'First name', last_name: 'Last name', email: 'E-mail', prefix: 'Prefix', suffix: 'Suffix', phone: 'Phone',
  cell_phone: 'Cell phone', company: 'Company', job_title: 'Job title', work_phone: 'Work phone', blog: 'Blog', website: 'Website',
  barcode: 'Barcode', nfc_tag: 'NFC tag', registration_type: 'Registration type', attention: 'Attention', notes: 'Notes',
};
/** The export's columns after the guest fields, written by the server and left alone by an import. */
export const STATE_LABELS = { id: 'ID', registrationTypeId: 'Registration type ID', status: 'Status', checkedIn: 'Checked in', checkedInAt: 'Checked in at', created: 'Created', modified: 'Modified' };

// Multiple answers of a checkbox question share one cell.
export const CHOICE_SEPARATOR = '; ';

/** Spellings people use in spreadsheets, compared without case, spaces or punctuation. */
const ALIASES: Record<string, Field> = {
  firstname: 'first_name', first: 'first_name', givenname: 'first_name', forename: 'first_name', vorname: 'first_name',
  lastname: 'last_name', last: 'last_name', surname: 'last_name', familyname: 'last_name', nachname: 'last_name',
  email: 'email', emailaddress: 'email', mail: 'email',
  prefix: 'prefix', salutation: 'prefix',
  suffix: 'suffix',
  phone: 'phone', phonenumber: 'phone', telephone: 'phone', tel: 'phone',
  cellphone: 'cell_phone', cell: 'cell_phone', mobile: 'cell_phone', mobilephone: 'cell_phone',
  company: 'company', companyname: 'company', organisation: 'company', organization: 'company',
  jobtitle: 'job_title', position: 'job_title',
  workphone: 'work_phone', officephone: 'work_phone', businessphone: 'work_phone',
  blog: 'blog', blogurl: 'blog',
  website: 'website', web: 'website', url: 'website', homepage: 'website',
  barcode: 'barcode', ticketcode: 'barcode',
  nfc: 'nfc_tag', nfctag: 'nfc_tag', nfcid: 'nfc_tag',
  registrationtype: 'registration_type', registrationtypeid: 'registration_type', tickettype: 'registration_type',
  attention: 'attention', needsattention: 'attention',
  notes: 'notes', note: 'notes', doornotes: 'notes',
};
/** Columns the export writes that an import leaves alone (the server owns them). */
const READ_ONLY = new Set(['id', 'event', 'objstatus', 'status', 'checkedin', 'checkedinat', 'created', 'modified', 'selfie', 'source', 'registrationtypename', 'registrationtypeid']);

export function normaliseHeader(header: string): string {
  return header.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** What an import does with one column of the file. */
export type Column = { kind: 'field'; field: Field } | { kind: 'question'; question: CsvQuestion } | { kind: 'read-only' } | { kind: 'ignored' };

/** The file's columns by their headers: a guest field by its label or alias, else a question by its text. */
export function mapColumns(headers: string[], questions: CsvQuestion[]): Column[] {
  const byText = new Map(questions.map((q) => [normaliseHeader(q.question), q]));
  const used = new Set<string>();
  return headers.map((header) => {
    const key = normaliseHeader(header);
    const field = ALIASES[key];
    // A question whose text is also a field name is reached by its text only when the field is taken.
    if (field && !used.has(field)) {
      used.add(field);
      return { kind: 'field', field };
    }
    const question = byText.get(key);
    if (question && !used.has(`q${question.id}`)) {
      used.add(`q${question.id}`);
      return { kind: 'question', question };
    }
    return READ_ONLY.has(key) ? { kind: 'read-only' } : { kind: 'ignored' };
  });
}

/**
 * Errors named as the file names its columns: a field by its column's header (its label when
 * the file has none), an answer by its question's column.
 */
export function columnNames(headers: string[], columns: Column[]): (key: string) => string {
  const names = new Map<string, string>();
  columns.forEach((c, i) => {
    if (c.kind === 'field') names.set(c.field, headers[i]);
    else if (c.kind === 'question') names.set(`q${c.question.id}`, headers[i]);
  });
  return (key) => names.get(key) ?? FIELD_LABELS[key as Field] ?? key;
}

/** How the import's answer reports the columns: what each used one filled, and those it left. */
export function columnSummary(headers: string[], columns: Column[]) {
  const used: Record<string, string> = {};
  const ignored: string[] = [];
  const readOnly: string[] = [];
  columns.forEach((c, i) => {
    if (c.kind === 'field') used[headers[i]] = c.field;
    else if (c.kind === 'question') used[headers[i]] = `question ${c.question.id}`;
    else (c.kind === 'read-only' ? readOnly : ignored).push(headers[i]);
  });
  return { columns: used, ignored_columns: ignored, read_only_columns: readOnly };
}
