import { z } from './zod';
import { boolean, choice } from './fields';
import { MSG } from '../../core/messages';

/** The export's separators by name: a spreadsheet in a comma-decimal locale opens `;` files. */
export const SEPARATORS = { comma: ',', semicolon: ';', tab: '\t' } as const;

export const GuestsCsvExportQuery = z.object({
  separator: choice(['comma', 'semicolon', 'tab'], MSG.csvSeparator).optional().openapi({ description: 'Between cells; comma unless asked.' }),
});

export const GuestsCsvImportQuery = z.object({
  dry_run: boolean().optional().openapi({ description: 'Check every row and report what would be created, writing nothing.' }),
});

export const GuestsCsvImportResult = z
  .object({
    dry_run: z.boolean(),
    created: z.number().int().openapi({ description: 'Guests created (0 on a dry run).' }),
    would_create: z.number().int(),
    columns: z.record(z.string(), z.string()).openapi({ description: 'Each CSV column used, and the guest field or question it filled.' }),
    ignored_columns: z.array(z.string()).openapi({ description: 'Columns Doorlist does not read: left out of the guests.' }),
    read_only_columns: z.array(z.string()).openapi({ description: 'Columns of an export Doorlist keeps itself (ID, check-in state, times): left as they are.' }),
  })
  .openapi('GuestsCsvImportResult');

export const GuestsCsvRowErrors = z
  .object({
    detail: z.string().optional().openapi({ description: 'Present when reading stopped early (too many bad rows).' }),
    rows: z
      .array(z.object({ row: z.number().int(), errors: z.record(z.string(), z.array(z.string())) }))
      .openapi({ description: 'The first 100 bad rows, in row order (row 1 is the header).' }),
    more_rows: z.number().int().openapi({ description: 'How many more rows are bad than are listed.' }),
  })
  .openapi('GuestsCsvRowErrors');
