import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { ValidationError } from '../http/errors';
import { csvRecords } from '../http/csv-body';
import { scopedEvent } from '../http/scope';
import { DetailResponse } from '../schemas/fields';
import { EventParams } from '../schemas/events';
import { GuestsCsvExportQuery, GuestsCsvImportQuery, GuestsCsvImportResult, GuestsCsvRowErrors, SEPARATORS } from '../schemas/guests-csv';
import { guestsCsvExport } from '../services/guest-csv-export';
import { importGuestsCsv } from '../services/guest-csv-import';
import { MSG } from '../../core/messages';

// Bodies Express would parse as a form or JSON: a CSV upload must come as the file itself.
const PARSED_TYPES = ['application/json', 'application/*+json', 'application/x-www-form-urlencoded'];

export function guestsCsvRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  route({
    method: 'get',
    path: '/events/{event_id}/guests.csv',
    operationId: 'exportGuestsCsv',
    summary: 'Every guest as CSV: guest fields, check-in state and one column per custom question',
    tags: ['Guests'],
    access: 'door',
    params: EventParams,
    query: GuestsCsvExportQuery,
    responses: {
      200: { description: 'The guest list', content: { 'text/csv': { schema: { type: 'string' } } } },
      404: { description: MSG.eventNotFound, content: { 'application/json': { schema: DetailResponse } } },
    },
    handler: async ({ params, query, caller, res }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const { fileName, header, rows } = await guestsCsvExport(deps.db, event);
      res.status(200);
      res.attachment(fileName);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      // The BOM makes spreadsheet programs read the file as UTF-8.
      const csv = stringify({ header: true, columns: header, bom: true, delimiter: SEPARATORS[query.separator ?? 'comma'] });
      // One pipeline, awaited at once: a client that hangs up ends it (and the page reads)
      // with an error the route answers, never one left unhandled.
      await pipeline(Readable.from(rows), csv, res);
    },
  });

  route({
    method: 'post',
    path: '/events/{event_id}/guests.csv',
    operationId: 'importGuestsCsv',
    summary: 'Add guests from CSV (header row names the columns); all rows or none',
    tags: ['Guests'],
    params: EventParams,
    query: GuestsCsvImportQuery,
    rawBody: { contentType: 'text/csv', description: 'A header row, then one guest per row' },
    responses: {
      200: { description: 'Dry run: what would be created', content: { 'application/json': { schema: GuestsCsvImportResult } } },
      201: { description: 'Guests created', content: { 'application/json': { schema: GuestsCsvImportResult } } },
      400: { description: 'Rows with errors (nothing written), named by the file\'s column headers', content: { 'application/json': { schema: GuestsCsvRowErrors } } },
      404: { description: MSG.eventNotFound, content: { 'application/json': { schema: DetailResponse } } },
      413: { description: MSG.bodyTooLarge, content: { 'application/json': { schema: DetailResponse } } },
    },
    handler: async ({ params, query, caller, req }) => {
      if (req.is(PARSED_TYPES)) throw new ValidationError({ detail: MSG.csvContentType });
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const records = await csvRecords(req);
      const dryRun = query.dry_run ?? false;
      const { would_create, ...columns } = await importGuestsCsv(deps.db, event, records, { dryRun, doorActive: () => deps.localWrites.doorActive() });
      if (dryRun) return { status: 200, body: { dry_run: true, created: 0, ...columns, would_create } };
      return { status: 201, body: { dry_run: false, created: would_create, ...columns, would_create } };
    },
  });

  return router;
}
