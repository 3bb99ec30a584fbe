import fs from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { HttpError, ValidationError } from '../http/errors';
import { scopedEvent } from '../http/scope';
import { DetailResponse, DetailsResponse } from '../schemas/fields';
import { EventParams } from '../schemas/events';
import { EventFileExportQuery, EventFileImportQuery, EventFileImportResult } from '../schemas/event-files';
import { MSG } from '../../core/messages';
import { expectLeadingBytes, GZIP_MAGIC } from '../http/upload-body';
import { DOOR_HIDDEN_TABLES, EVENT_FILE_MEDIA_TYPE, eventFileName, exportEventToPath, importEventFile, tempEventFile } from '../event-file';

/** An event file of 100k guests is tens of megabytes; this leaves room for far larger ones. */
export const EVENT_FILE_MAX_BYTES = 500 * 1024 * 1024;
// Bodies the JSON and form parsers have already consumed can never be an event file.
const PARSED_TYPES = ['application/json', 'application/*+json', 'application/x-www-form-urlencoded', 'text/*'];

/** Streams the request body to `file`, refusing it past `limit` bytes. */
export async function spoolBody(req: Request, file: string, limit: number): Promise<void> {
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > limit) done(new HttpError(413, { detail: MSG.bodyTooLarge }));
      else done(null, chunk);
    },
  });
  // Readable by this user only: the upload holds guest data.
  await pipeline(req, counter, fs.createWriteStream(file, { mode: 0o600 }));
}

export function eventFilesRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  route({
    method: 'get',
    path: '/events/{event_id}/export',
    operationId: 'exportEventFile',
    summary: 'Download the event and everything under it as one event file (gzip NDJSON, checksummed); with since, only what changed',
    tags: ['Event files'],
    access: 'door',
    params: EventParams,
    query: EventFileExportQuery,
    responses: {
      200: { description: 'The event file', content: { [EVENT_FILE_MEDIA_TYPE]: { schema: { type: 'string', format: 'binary' } } } },
      404: { description: MSG.eventNotFound, content: { 'application/json': { schema: DetailResponse } } },
    },
    handler: async ({ params, query, caller, res }) => {
      const event = await scopedEvent(deps.readDb, caller, params.event_id);
      // Written to disk first: the snapshot transaction ends before a slow download begins.
      const file = tempEventFile();
      try {
        // A door reads no promotion codes through the API, nor through its event files.
        await exportEventToPath(deps.readDb, event, file, { since: query.since, omitTables: caller.role === 'door' ? DOOR_HIDDEN_TABLES : [] });
        const { size } = await fs.promises.stat(file);
        res.status(200);
        res.attachment(eventFileName(event));
        // After attachment(), which would name it application/gzip from the extension.
        res.setHeader('Content-Type', EVENT_FILE_MEDIA_TYPE);
        res.setHeader('Content-Length', String(size));
        await pipeline(fs.createReadStream(file), res);
      } finally {
        await fs.promises.rm(file, { force: true });
      }
    },
  });

  route({
    method: 'post',
    path: '/events/import',
    operationId: 'importEventFile',
    summary: 'Import an event file: a new event is created whole, an existing one (same uid) is merged',
    tags: ['Event files'],
    access: 'door',
    query: EventFileImportQuery,
    rawBody: { contentType: 'application/gzip', description: 'The event file as exported, sent as is' },
    responses: {
      200: { description: 'Merged into the existing event', content: { 'application/json': { schema: EventFileImportResult } } },
      201: { description: 'A new event was created', content: { 'application/json': { schema: EventFileImportResult } } },
      400: { description: `Field errors, {detail} for a file that is not an event file, or {"details": "${MSG.groupNotFound}"} for a group the caller cannot use`, content: { 'application/json': { schema: DetailsResponse } } },
      404: { description: MSG.eventNotFound, content: { 'application/json': { schema: DetailResponse } } },
      409: `${MSG.eventFileImportRunning} Or, for a door role: ${MSG.eventFileDoorNewEvent}`,
      413: { description: MSG.bodyTooLarge, content: { 'application/json': { schema: DetailResponse } } },
    },
    handler: async ({ query, caller, req, res }) => {
      if (req.is(PARSED_TYPES)) throw new ValidationError({ detail: MSG.eventFileContentType });
      // Not gzip is not an event file: refused before a byte of it reaches the disk.
      await expectLeadingBytes(req, res, GZIP_MAGIC, MSG.eventFileForeign);
      const file = tempEventFile();
      try {
        await spoolBody(req, file, EVENT_FILE_MAX_BYTES);
        const result = await importEventFile(deps.db, file, {
          scope: caller.groups,
          groupId: query.group_id ?? caller.groupId ?? undefined,
          // A door may bring check-ins, undos and new guests; anything else is listed, not applied.
          allowSetupChanges: caller.role !== 'door',
          reader: deps.readDb,
          doorActive: () => deps.localWrites.doorActive(),
          waitMs: deps.config.importWaitMs,
        });
        return { status: result.event_created ? 201 : 200, body: result };
      } finally {
        await fs.promises.rm(file, { force: true });
      }
    },
  });

  return router;
}
