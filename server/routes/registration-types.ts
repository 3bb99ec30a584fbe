import { findRegistrationType, insertRegistrationType, listRegistrationTypes, toRegistrationType, updateRegistrationType } from '../../db/repositories/registration-types';
import { envelope, envelopeSchema, pageRequest } from '../http/pagination';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { NotFoundError } from '../http/errors';
import { scopedEvent } from '../http/scope';
import { DetailsResponse, IdResponse } from '../schemas/fields';
import { EventParams } from '../schemas/events';
import { RegistrationType, RegistrationTypeCreate, RegistrationTypeListQuery, RegistrationTypeParams, RegistrationTypeUpdate } from '../schemas/registration-types';
import { MSG } from '../../core/messages';

export function registrationTypesRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  route({
    method: 'post',
    path: '/events/{event_id}/registration_types',
    operationId: 'createRegistrationType',
    summary: 'Create a registration type (ticket or donation)',
    tags: ['Registration types'],
    params: EventParams,
    body: RegistrationTypeCreate,
    responses: {
      201: { description: 'Created', content: { 'application/json': { schema: IdResponse } } },
      400: { description: `Field errors, or {details: ["${MSG.registrationTypeIntegrity}"]}`, content: { 'application/json': { schema: DetailsResponse } } },
      404: MSG.eventNotFound,
    },
    handler: async ({ params, body, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const id = await insertRegistrationType(deps.db, event.id, {
        type: body.type,
        name: body.name,
        description: body.description,
        starts: body.starts ?? null,
        ends: body.ends ?? null,
        minorder: body.minorder ?? null,
        maxorder: body.maxorder ?? null,
        price: body.price ?? null,
        quantity: body.quantity ?? null,
        door: body.door,
        online: body.online,
        attention: body.attention,
      });
      return { status: 201, body: { id } };
    },
  });

  // Paths work with and without a trailing slash (the spec writes this one with it).
  route({
    method: 'get',
    path: '/events/{event_id}/registration_types',
    operationId: 'listRegistrationTypes',
    summary: "List an event's registration types",
    tags: ['Registration types'],
    access: 'door',
    params: EventParams,
    query: RegistrationTypeListQuery,
    responses: {
      200: { description: 'Registration types', content: { 'application/json': { schema: envelopeSchema(RegistrationType, 'RegistrationTypeList') } } },
      404: MSG.eventNotFound,
    },
    handler: async ({ params, query, caller, req }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const { count, rows } = await listRegistrationTypes(deps.db, event.id, pageRequest(query));
      return { status: 200, body: envelope(req, query, count, rows.map(toRegistrationType)) };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/registration_types/{registration_type_id}',
    operationId: 'getRegistrationType',
    summary: 'One registration type',
    tags: ['Registration types'],
    access: 'door',
    params: RegistrationTypeParams,
    responses: {
      200: { description: 'The registration type', content: { 'application/json': { schema: RegistrationType } } },
      404: { description: MSG.registrationTypeNotFound, content: { 'application/json': { schema: DetailsResponse } } },
    },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const row = await findRegistrationType(deps.db, event.id, params.registration_type_id);
      if (!row) throw new NotFoundError(MSG.registrationTypeNotFound, 'details');
      return { status: 200, body: toRegistrationType(row) };
    },
  });

  route({
    method: 'put',
    path: '/events/{event_id}/registration_types/{registration_type_id}',
    operationId: 'updateRegistrationType',
    summary: "Change a registration type: any of create's fields, the others stay (attention: the door stops for all its guests)",
    tags: ['Registration types'],
    params: RegistrationTypeParams,
    body: RegistrationTypeUpdate,
    responses: {
      200: { description: 'Updated', content: { 'application/json': { schema: IdResponse } } },
      400: { description: `Field errors, or {details: ["${MSG.registrationTypeIntegrity}"]}`, content: { 'application/json': { schema: DetailsResponse } } },
      404: { description: MSG.registrationTypeNotFound, content: { 'application/json': { schema: DetailsResponse } } },
    },
    handler: async ({ params, body, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const found = await updateRegistrationType(deps.db, event.id, params.registration_type_id, body);
      if (!found) throw new NotFoundError(MSG.registrationTypeNotFound, 'details');
      return { status: 200, body: { id: params.registration_type_id } };
    },
  });

  return router;
}
