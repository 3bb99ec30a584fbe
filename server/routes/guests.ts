import { readSnapshot } from '../../db/knex';
import { GUEST_TEXT_FIELDS, guestJson, listGuests, type GuestInsert, type GuestUpdateFields } from '../../db/repositories/guests';
import { nowIso, toApiDatetime } from '../../core/time';
import { envelope, pageRequest } from '../http/pagination';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { NotFoundError } from '../http/errors';
import { guestCreates, updateGuestChecked } from '../services/guest-writes';
import { scopedEvent } from '../http/scope';
import { DetailsResponse, IdResponse } from '../schemas/fields';
import { EventParams } from '../schemas/events';
import { Guest, GuestCreate, GuestList, GuestListQuery, GuestParams, GuestUpdate } from '../schemas/guests';
import { MSG } from '../../core/messages';

function textColumns(body: Partial<Record<(typeof GUEST_TEXT_FIELDS)[number], string | null | undefined>>) {
  const out: Partial<Record<(typeof GUEST_TEXT_FIELDS)[number], string | null>> = {};
  for (const key of GUEST_TEXT_FIELDS) if (body[key] !== undefined) out[key] = body[key];
  return out;
}

export function guestsRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);
  const guestNotFound = () => new NotFoundError(MSG.guestNotFound, 'details');
  const createGuest = guestCreates(deps.db, deps.logger);

  route({
    method: 'post',
    path: '/events/{event_id}/guests',
    operationId: 'createGuest',
    summary: 'Add a guest (barcode generated when omitted), with answers to custom questions',
    tags: ['Guests'],
    access: 'door',
    params: EventParams,
    body: GuestCreate,
    responses: { 201: { description: 'Created', content: { 'application/json': { schema: IdResponse } } }, 404: MSG.eventNotFound },
    // Scope, checks and the insert in one transaction, shared by the requests that queue behind
    // the writer (server/services/guest-writes.ts).
    handler: async ({ params, body, caller }) => {
      const guest: GuestInsert = {
        registration_type_id: body.registration_type,
        first_name: body.first_name,
        last_name: body.last_name,
        email: body.email,
        ...textColumns(body),
        barcode: body.barcode,
        nfc_tag: body.nfc_tag ?? null,
        attention: body.attention ?? false,
        notes: body.notes ?? null,
      };
      const id = await createGuest({ eventId: params.event_id, scope: caller.groups, guest, customQuestions: body.custom_questions });
      return { status: 201, body: { id } };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/guests',
    operationId: 'listGuests',
    summary: 'The guest list: paged, `timestamp` delta, only_checkins, search (name, e-mail, company, barcode, NFC tag); the console sorts (ordering) and filters (checked_in, registration_type, attention, station)',
    tags: ['Guests'],
    access: 'door',
    params: EventParams,
    query: GuestListQuery,
    responses: { 200: { description: 'Guests', content: { 'application/json': { schema: GuestList } } }, 404: MSG.eventNotFound },
    handler: async ({ params, query, caller, req }) => {
      const startTime = nowIso();
      // On a read connection, count and page from one snapshot taken after start_time: the
      // door's writes never wait for a full sync, and a delta from start_time misses nothing.
      const event = await scopedEvent(deps.readDb, caller, params.event_id);
      const { count, guests } = await readSnapshot(deps.readDb, (trx) =>
        listGuests(
          trx,
          event.id,
          {
            onlyCheckins: query.only_checkins,
            search: query.search,
            checkedIn: query.checked_in,
            registrationTypeId: query.registration_type,
            attention: query.attention,
            station: query.station,
            ordering: query.ordering,
          },
          pageRequest(query),
        ),
      );
      const rawTimestamp = req.query.timestamp;
      const { next, previous } = envelope(req, query, count, []);
      const tail = {
        page: query.page,
        timestamp: typeof rawTimestamp === 'string' ? rawTimestamp : null,
        start_time: toApiDatetime(startTime),
        end_time: toApiDatetime(nowIso()),
      };
      // The guests arrive as JSON bytes from the database: the envelope is written around them
      // and sent as it is.
      const head = Buffer.from(`${JSON.stringify({ count, next, previous }).slice(0, -1)},"results":[`);
      return { status: 200, body: Buffer.concat([head, guests, Buffer.from(`],${JSON.stringify(tail).slice(1)}`)]) };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/guests/{guest_id}',
    operationId: 'getGuest',
    summary: 'One guest with answers and door state',
    tags: ['Guests'],
    access: 'door',
    params: GuestParams,
    responses: {
      200: { description: 'The guest', content: { 'application/json': { schema: Guest } } },
      404: { description: MSG.guestNotFound, content: { 'application/json': { schema: DetailsResponse } } },
    },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      // The guest's JSON comes from the database, as each guest of the list does.
      const guest = await guestJson(deps.db, event.id, params.guest_id);
      if (!guest) throw guestNotFound();
      return { status: 200, body: guest };
    },
  });

  route({
    method: 'put',
    path: '/events/{event_id}/guests/{guest_id}',
    operationId: 'updateGuest',
    summary: 'Update a guest (every field optional; answers sent replace those questions\' answers)',
    tags: ['Guests'],
    params: GuestParams,
    body: GuestUpdate,
    responses: {
      200: { description: 'Updated', content: { 'application/json': { schema: IdResponse } } },
      404: { description: MSG.guestNotFound, content: { 'application/json': { schema: DetailsResponse } } },
    },
    // Scope, the guest, its checks and the update in one write transaction (server/services/guest-writes.ts).
    handler: async ({ params, body, caller }) => {
      const fields: Omit<GuestUpdateFields, 'answers'> = textColumns(body);
      if (body.registration_type !== undefined) fields.registration_type_id = body.registration_type;
      for (const key of ['first_name', 'last_name', 'email', 'barcode', 'nfc_tag', 'objstatus', 'attention', 'notes'] as const) {
        if (body[key] !== undefined) (fields as Record<string, unknown>)[key] = body[key];
      }
      const id = await updateGuestChecked(deps.db, { eventId: params.event_id, guestId: params.guest_id, scope: caller.groups, fields, customQuestions: body.custom_questions });
      return { status: 200, body: { id } };
    },
  });

  return router;
}
