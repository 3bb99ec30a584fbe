import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { readSnapshot } from '../../db/knex';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { ValidationError } from '../http/errors';
import { scopedEvent } from '../http/scope';
import { DetailResponse } from '../schemas/fields';
import { EventParams } from '../schemas/events';
import { EventFileImportResult } from '../schemas/event-files';
import { SyncChangesQuery, SyncConflict, SyncCreate, SyncCreated, SyncDoubleAdmission, SyncFindingsQuery, SyncPreview, SyncPreviewRequest, SyncStatus } from '../schemas/sync';
import { envelope, envelopeSchema, pageRequest } from '../http/pagination';
import { deleteSync, listSyncs, deltaStart, recordFindings } from '../../db/repositories/sync';
import { forgetVenue } from '../../db/repositories/venue';
import { TakeoverAnswer, VenueAnswer, VenueHello, VenueView } from '../schemas/venue';
import { answerHello, takeOverVenue, venueSelf, venueView } from '../sync/venue';
import { MSG } from '../../core/messages';
import { expectLeadingBytes, GZIP_MAGIC } from '../http/upload-body';
import { nowIso } from '../../core/time';
import { DOOR_HIDDEN_TABLES, EVENT_FILE_MEDIA_TYPE, tempEventFile } from '../event-file';
import { EVENT_FILE_MAX_BYTES, spoolBody } from './event-files';
import { findingsOf, followEvent, previewUpstream, syncConflicts, syncDoubleAdmissions, syncOf, syncStatus, syncTiming } from '../sync';
import { checkEventFile, mergeEventChanges, writeEventChanges } from '../sync/event-files';
import { CURSOR_HEADER } from '../sync/upstream';

/**
 * Following an upstream Doorlist. Two halves: a laptop's own follow/status/unfollow, and the
 * pair of routes its follower calls on the upstream (changes down, changes up).
 *
 * Over 80 lines only as a table: one `route()` declaration per endpoint (schemas, answers, a
 * handler of a few lines), kept together so the resource's routes read in one place.
 */
export function syncRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  route({
    method: 'post',
    path: '/sync',
    operationId: 'followEvent',
    summary: "Follow an upstream Doorlist's event: pulled whole now (same uids), then kept in step both ways",
    tags: ['Sync'],
    // This laptop reaches out to the address given: only its own signed-in administrator may point it anywhere.
    access: 'signed-in-admin',
    body: SyncCreate,
    responses: {
      201: { description: 'Pulled and followed', content: { 'application/json': { schema: SyncCreated } } },
      409: { description: MSG.syncAlreadyFollowed, content: { 'application/json': { schema: DetailResponse } } },
    },
    handler: async ({ body }) => {
      const created = await followEvent(deps.db, body, syncTiming(deps.config));
      return { status: 201, body: created };
    },
  });

  route({
    method: 'post',
    path: '/sync/preview',
    operationId: 'previewFollow',
    summary: "What following an upstream would offer: its certificate's fingerprint and the events the key sees there. Nothing is stored",
    tags: ['Sync'],
    access: 'signed-in-admin',
    body: SyncPreviewRequest,
    responses: { 200: { description: "The upstream's fingerprint and events", content: { 'application/json': { schema: SyncPreview } } } },
    handler: async ({ body }) => ({ status: 200, body: await previewUpstream(body, syncTiming(deps.config)) }),
  });

  route({
    method: 'get',
    path: '/sync',
    operationId: 'listFollowedEvents',
    summary: 'What this laptop follows, with each sync state (never the upstream key)',
    tags: ['Sync'],
    access: 'door',
    responses: { 200: { description: 'Followed events', content: { 'application/json': { schema: envelopeSchema(SyncStatus, 'SyncList') } } } },
    handler: async ({ caller }) => {
      const results = await Promise.all((await listSyncs(deps.db, caller.groups)).map((s) => syncStatus(deps.db, s)));
      return { status: 200, body: { count: results.length, next: null, previous: null, results } };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/sync',
    operationId: 'getEventSync',
    summary: "The event's sync: state, last push and pull, pending changes, double admissions, conflicts; door roles read it too (the door screen's sync chip)",
    tags: ['Sync'],
    access: 'door',
    params: EventParams,
    responses: { 200: { description: 'Sync status', content: { 'application/json': { schema: SyncStatus } } }, 404: MSG.syncNotFound },
    handler: async ({ params, caller }) => {
      // Door screens poll this: on the read connection it never queues behind a scan's write. One
      // snapshot: a follower moving to the venue's new upstream is shown whole (its address with its epoch).
      const event = await scopedEvent(deps.readDb, caller, params.event_id, MSG.syncNotFound);
      return { status: 200, body: await readSnapshot(deps.readDb, async (trx) => syncStatus(trx, await syncOf(trx, event))) };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/sync/double_admissions',
    operationId: 'listSyncDoubleAdmissions',
    summary: "The event's double admissions (guests admitted at two doors while apart), newest first, a page at a time; on the venue's upstream too",
    tags: ['Sync'],
    access: 'door',
    params: EventParams,
    query: SyncFindingsQuery,
    responses: { 200: { description: 'Double admissions', content: { 'application/json': { schema: envelopeSchema(SyncDoubleAdmission, 'SyncDoubleAdmissionList') } } }, 404: MSG.syncNotFound },
    handler: async ({ params, query, caller, req }) => {
      const event = await scopedEvent(deps.readDb, caller, params.event_id, MSG.syncNotFound);
      const { count, results } = await syncDoubleAdmissions(deps.readDb, await findingsOf(deps.readDb, event), pageRequest(query));
      return { status: 200, body: envelope(req, query, count, results) };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/sync/conflicts',
    operationId: 'listSyncConflicts',
    summary: "The event's sync conflicts (changes a merge could not apply as is), newest first, a page at a time; on the venue's upstream too",
    tags: ['Sync'],
    access: 'door',
    params: EventParams,
    query: SyncFindingsQuery,
    responses: { 200: { description: 'Conflicts', content: { 'application/json': { schema: envelopeSchema(SyncConflict, 'SyncConflictList') } } }, 404: MSG.syncNotFound },
    handler: async ({ params, query, caller, req }) => {
      const event = await scopedEvent(deps.readDb, caller, params.event_id, MSG.syncNotFound);
      const { count, results } = await syncConflicts(deps.readDb, await findingsOf(deps.readDb, event), pageRequest(query));
      return { status: 200, body: envelope(req, query, count, results) };
    },
  });

  route({
    method: 'delete',
    path: '/events/{event_id}/sync',
    operationId: 'unfollowEvent',
    summary: 'Stop following the upstream; the event and everything in it stay here',
    tags: ['Sync'],
    access: 'signed-in-admin',
    params: EventParams,
    responses: { 204: 'No longer followed', 404: MSG.syncNotFound },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id, MSG.syncNotFound);
      await syncOf(deps.db, event);
      await deleteSync(deps.db, event.id);
      // The venue's credential and laptops go with the follow; the credential stops working at once.
      await forgetVenue(deps.db, event.id);
      deps.auth.forget();
      // A cycle under way may be about to push: once this answers, nothing more goes upstream.
      await deps.localWrites.noteUnfollow(event.id);
      return { status: 204 };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/sync/changes',
    operationId: 'listSyncChanges',
    summary: "For a follower: the event's changes since its cursor as an event file (whole without one), and the next cursor",
    tags: ['Sync'],
    access: 'sync',
    params: EventParams,
    query: SyncChangesQuery,
    responses: {
      200: { description: `The event file; the next cursor in ${CURSOR_HEADER}`, content: { [EVENT_FILE_MEDIA_TYPE]: { schema: { type: 'string', format: 'binary' } } } },
      404: { description: MSG.eventNotFound, content: { 'application/json': { schema: DetailResponse } } },
    },
    handler: async ({ params, query, caller, res }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      // Taken before the snapshot: whatever commits after it is at or after the next cursor.
      const cursor = nowIso();
      const since = query.since === undefined ? undefined : await deltaStart(deps.db, event.id, query.since);
      const file = tempEventFile();
      try {
        // A door role reads no promotion codes, here as in its event-file exports.
        await writeEventChanges(deps.db, event, file, since, caller.role === 'door' ? DOOR_HIDDEN_TABLES : []);
        const { size } = await fs.promises.stat(file);
        res.status(200);
        res.setHeader('Content-Type', EVENT_FILE_MEDIA_TYPE);
        res.setHeader('Content-Length', String(size));
        res.setHeader(CURSOR_HEADER, cursor);
        await pipeline(fs.createReadStream(file), res);
      } finally {
        await fs.promises.rm(file, { force: true });
      }
    },
  });

  route({
    method: 'post',
    path: '/events/{event_id}/sync/changes',
    operationId: 'pushSyncChanges',
    summary: "For a follower: merge its changes (an event file of this event) by uid; a replay changes nothing",
    tags: ['Sync'],
    access: 'sync',
    params: EventParams,
    rawBody: { contentType: EVENT_FILE_MEDIA_TYPE, description: "The follower's changes as an event file", pool: 'sync' },
    responses: {
      200: { description: 'Merged', content: { 'application/json': { schema: EventFileImportResult } } },
      404: { description: MSG.eventNotFound, content: { 'application/json': { schema: DetailResponse } } },
    },
    handler: async ({ params, caller, req, res }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      if (req.is(['application/json', 'application/*+json', 'application/x-www-form-urlencoded', 'text/*'])) {
        throw new ValidationError({ detail: MSG.eventFileContentType });
      }
      await expectLeadingBytes(req, res, GZIP_MAGIC, MSG.eventFileForeign);
      const file = tempEventFile();
      try {
        await spoolBody(req, file, EVENT_FILE_MAX_BYTES);
        const header = await checkEventFile(file);
        if (header.event.uid !== event.uid) throw new ValidationError({ detail: MSG.syncWrongEvent });
        // A door key's follower brings what a door may do; anything else is listed, not applied.
        // The merge notes the arrival in its own transaction: this server's followers, and its
        // own push upstream, reach back for changes older than their cursors.
        const result = await mergeEventChanges(deps.db, file, {
          scope: caller.groups,
          groupId: event.group_id,
          reader: deps.readDb,
          allowSetupChanges: caller.role !== 'door',
          arrival: 'push',
          eventUid: event.uid,
          // Listed here too, committed with the merge.
          withinCommit: (trx, merged) => recordFindings(trx, event.id, merged),
        });
        return { status: 200, body: result };
      } finally {
        await fs.promises.rm(file, { force: true });
      }
    },
  });

  route({
    method: 'post',
    path: '/events/{event_id}/sync/venue',
    operationId: 'greetVenue',
    summary: "For a venue's laptops: say who this one is for the event; the answer is the venue as the laptop asked knows it (its part and epoch, the venue credential, the laptops)",
    description: 'The venue\'s upstream notes a follower that shares the LAN (at most 64 laptops). The credential is answered only over the link the caller pinned, and never shown by any other route.',
    tags: ['Sync'],
    access: 'sync',
    params: EventParams,
    body: VenueHello,
    responses: {
      200: { description: 'The venue as this laptop knows it', content: { 'application/json': { schema: VenueAnswer } } },
      404: { description: MSG.eventNotFound, content: { 'application/json': { schema: DetailResponse } } },
      409: { description: MSG.venueFull(64), content: { 'application/json': { schema: DetailResponse } } },
    },
    handler: async ({ params, body, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      return { status: 200, body: await answerHello(deps.db, event, body, venueSelf(deps.config.stationName, deps.lan)(), deps.config.venueProbeSeconds * 1000) };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/sync/venue',
    operationId: 'getEventVenue',
    summary: "The event's venue on this laptop, the venue's upstream included: this laptop's part, the epoch, the laptops it knows (never the credential)",
    tags: ['Sync'],
    access: 'door',
    params: EventParams,
    responses: { 200: { description: 'The venue', content: { 'application/json': { schema: VenueView } } }, 404: MSG.venueNotFound },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.readDb, caller, params.event_id, MSG.venueNotFound);
      return { status: 200, body: await venueView(deps.readDb, event) };
    },
  });

  route({
    method: 'post',
    path: '/events/{event_id}/sync/takeover',
    operationId: 'takeOverVenue',
    summary: "Stop following and become the venue's upstream for the event, one epoch above the highest this laptop knows; the venue's other laptops find it by themselves",
    tags: ['Sync'],
    access: 'signed-in-admin',
    params: EventParams,
    responses: {
      200: { description: 'The upstream now', content: { 'application/json': { schema: TakeoverAnswer } } },
      404: MSG.eventNotFound,
      409: { description: MSG.venueNotFollowed, content: { 'application/json': { schema: DetailResponse } } },
    },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const answer = await takeOverVenue(deps.db, event);
      // A cycle under way towards the old upstream ends here; nothing more goes to it.
      await deps.localWrites.noteUnfollow(event.id);
      return { status: 200, body: answer };
    },
  });

  return router;
}
