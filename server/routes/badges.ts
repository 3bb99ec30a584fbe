import type { Response } from 'express';
import { readSnapshot } from '../../db/knex';
import type { EventRow } from '../../db/repositories/events';
import { badgeGuestsByIds, eventBadgeSize, listBadgePrints, printerName, setEventBadgeSize, toBadgePrint, type BadgeGuest } from '../../db/repositories/badge-prints';
import { envelope, envelopeSchema, pageRequest } from '../http/pagination';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { scannerOf, type Caller } from '../http/auth';
import { NotFoundError } from '../http/errors';
import { scopedEvent } from '../http/scope';
import { sendBadges } from '../badges/print';
import { badgeSelection } from '../services/badge-selection';
import { DetailResponse, DetailsResponse, FieldErrorsResponse } from '../schemas/fields';
import { EventParams } from '../schemas/events';
import { BadgeGuestParams, BadgeLayout, BadgeLayoutUpdate, BadgePrint, BadgePrintListQuery, BadgeQuery, BadgesSelection, type BadgesSelectionInput } from '../schemas/badges';
import { BADGE_MSG, BADGE_SIZES, MAX_BADGES_PER_PDF } from '../../core/badges';
import { MSG } from '../../core/messages';

const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema: schema as never } } });
// Badges are drawn by one worker, a bounded number at once (server/badges/slots.ts).
const busyResponses = {
  422: json(DetailResponse, BADGE_MSG.notDrawn),
  429: json(DetailResponse, 'Too many badge PDFs at once from this key or user (Retry-After)'),
  503: json(DetailResponse, 'Badge printing is busy: every slot and queue place taken (Retry-After)'),
};
const pdf = { description: 'The badges, one page each, on the event’s label size', content: { 'application/pdf': { schema: { type: 'string' as const, format: 'binary' } } } };

/**
 * Badges as PDF (one guest, or a selection), the label size and the print log.
 *
 * Over 80 lines only as a table: one `route()` declaration per endpoint (schemas, answers, a
 * handler of a few lines), kept together so the resource's routes read in one place.
 */
export function badgesRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  /** Streams the sheet and records its prints; `first` is the first page of guests, already read. */
  async function send(res: Response, caller: Caller, event: EventRow, station: string | null | undefined, first: BadgeGuest[], rest: () => AsyncIterable<BadgeGuest[]>, fileName: string) {
    const by = { station: station ?? null, printedBy: scannerOf(caller), printedByName: await printerName(deps.readDb, caller.kind, caller.id) };
    const size = await eventBadgeSize(deps.readDb, event.id);
    const sheet = { eventId: event.id, size, title: `${event.name}: badges`, fileName, caller: `${caller.kind}:${caller.id}`, first, rest, by, onRecorded: () => deps.localWrites.noteWrite(event.id) };
    await sendBadges(res, deps.db, deps.badges, sheet);
  }

  route({
    method: 'get',
    path: '/events/{event_id}/guests/{guest_id}/badge.pdf',
    operationId: 'getGuestBadge',
    summary: "A guest's badge (PDF), recorded in the print log",
    tags: ['Badges'],
    access: 'door',
    params: BadgeGuestParams,
    query: BadgeQuery,
    responses: { 200: pdf, 404: json(DetailsResponse, `${MSG.guestNotFound} (or {detail} for an unknown event)`), ...busyResponses },
    handler: async ({ params, query, caller, res }) => {
      const event = await scopedEvent(deps.readDb, caller, params.event_id);
      const guests = await badgeGuestsByIds(deps.readDb, event.id, [params.guest_id]);
      if (guests.length === 0) throw new NotFoundError(MSG.guestNotFound, 'details');
      await send(res, caller, event, query.station, guests, async function* () {}, `badge-${params.guest_id}.pdf`);
    },
  });

  const batchResponses = {
    200: pdf,
    400: json(FieldErrorsResponse, `guest_ids that are not the event’s guests, too many ids, an unknown registration_type, a selection of more than ${MAX_BADGES_PER_PDF} guests without limit, or no selection`),
    404: json(DetailsResponse, `${BADGE_MSG.noGuestToPrint} (or {detail} for an unknown event)`),
    ...busyResponses,
  };

  async function batch(caller: Caller, eventId: number, selection: BadgesSelectionInput, res: Response) {
    const event = await scopedEvent(deps.readDb, caller, eventId);
    const { first, rest } = await badgeSelection(deps.readDb, event, selection);
    if (first.length === 0) throw new NotFoundError(BADGE_MSG.noGuestToPrint, 'details');
    await send(res, caller, event, selection.station, first, rest, `badges-${event.id}.pdf`);
  }

  route({
    method: 'get',
    path: '/events/{event_id}/badges.pdf',
    operationId: 'printBadges',
    summary: 'Badges of many guests in one PDF: guest_ids, or a registration_type and/or not_printed=true; every print recorded',
    tags: ['Badges'],
    access: 'door',
    params: EventParams,
    query: BadgesSelection,
    responses: batchResponses,
    handler: ({ params, query, caller, res }) => batch(caller, params.event_id, query, res),
  });

  route({
    method: 'post',
    path: '/events/{event_id}/badges.pdf',
    operationId: 'printSelectedBadges',
    summary: 'The same as GET, the selection in a JSON body (a selection too long for a URL)',
    tags: ['Badges'],
    access: 'door',
    params: EventParams,
    body: BadgesSelection,
    responses: batchResponses,
    handler: ({ params, body, caller, res }) => batch(caller, params.event_id, body, res),
  });

  route({
    method: 'get',
    path: '/events/{event_id}/badge_layout',
    operationId: 'getBadgeLayout',
    summary: 'The label size badges print on',
    tags: ['Badges'],
    access: 'door',
    params: EventParams,
    responses: { 200: json(BadgeLayout, 'The layout'), 404: json(DetailResponse, MSG.eventNotFound) },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.readDb, caller, params.event_id);
      return { status: 200, body: { size: await eventBadgeSize(deps.readDb, event.id), sizes: [...BADGE_SIZES] } };
    },
  });

  route({
    method: 'put',
    path: '/events/{event_id}/badge_layout',
    operationId: 'updateBadgeLayout',
    summary: 'Choose the label size: 62x100mm (label roll), 4x3in or A6 (the default)',
    tags: ['Badges'],
    params: EventParams,
    body: BadgeLayoutUpdate,
    responses: { 200: json(BadgeLayout, 'The layout'), 404: json(DetailResponse, MSG.eventNotFound) },
    handler: async ({ params, body, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      await setEventBadgeSize(deps.db, event.id, body.size);
      return { status: 200, body: { size: body.size, sizes: [...BADGE_SIZES] } };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/badge_prints',
    operationId: 'listBadgePrints',
    summary: 'The print log: every badge printed (guest, station, who, when); filter guest_id, timestamp delta',
    tags: ['Badges'],
    access: 'door',
    params: EventParams,
    query: BadgePrintListQuery,
    responses: { 200: json(envelopeSchema(BadgePrint, 'BadgePrintList'), 'Prints'), 404: json(DetailResponse, MSG.eventNotFound) },
    handler: async ({ params, query, caller, req }) => {
      const event = await scopedEvent(deps.readDb, caller, params.event_id);
      const { count, rows } = await readSnapshot(deps.readDb, (trx) => listBadgePrints(trx, event.id, { guestId: query.guest_id }, pageRequest(query)));
      return { status: 200, body: envelope(req, query, count, rows.map(toBadgePrint)) };
    },
  });

  return router;
}
