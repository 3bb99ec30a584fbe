import {
  deletePromotionCode,
  findPromotionCode,
  listPromotionCodes,
  toPromotionCode,
} from '../../db/repositories/promotion-codes';
import type { EventRow } from '../../db/repositories/events';
import { envelope, envelopeSchema, pageRequest } from '../http/pagination';
import { resourceRouter } from '../http/route';
import type { RouteDeps } from './deps';
import { NotFoundError } from '../http/errors';
import { scopedEvent } from '../http/scope';
import { DetailResponse, IdResponse } from '../schemas/fields';
import { EventParams } from '../schemas/events';
import {
  PromotionCode,
  PromotionCodeCreate,
  PromotionCodeListQuery,
  PromotionCodeParams,
  PromotionCodeUpdate,
} from '../schemas/promotion-codes';
import { MSG } from '../../core/messages';
import { changePromotionCode, createPromotionCode } from '../services/promotion-code-writes';

const notFound = { description: MSG.promotionCodeNotFound, content: { 'application/json': { schema: DetailResponse } } };

/**
 * An event's promotion codes.
 *
 * Over 80 lines only as a table: one `route()` declaration per endpoint (schemas, answers, a
 * handler of a few lines), kept together so the resource's routes read in one place.
 */
export function promotionCodesRouter(deps: RouteDeps) {
  const { router, route } = resourceRouter(deps);

  async function requireCode(event: EventRow, id: number) {
    const code = await findPromotionCode(deps.db, event.id, id);
    if (!code) throw new NotFoundError(MSG.promotionCodeNotFound);
    return code;
  }

  route({
    method: 'post',
    path: '/events/{event_id}/promotion_codes',
    operationId: 'createPromotionCode',
    summary: 'Create a promotion code (unique within the event)',
    tags: ['Promotion codes'],
    params: EventParams,
    body: PromotionCodeCreate,
    responses: { 201: { description: 'Created', content: { 'application/json': { schema: IdResponse } } }, 404: MSG.eventNotFound },
    handler: async ({ params, body, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      // Its rules checked, then written (server/services/promotion-code-writes.ts).
      const id = await createPromotionCode(deps.db, event, body);
      return { status: 201, body: { id } };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/promotion_codes',
    operationId: 'listPromotionCodes',
    summary: "List an event's promotion codes",
    tags: ['Promotion codes'],
    params: EventParams,
    query: PromotionCodeListQuery,
    responses: { 200: { description: 'Promotion codes', content: { 'application/json': { schema: envelopeSchema(PromotionCode, 'PromotionCodeList') } } }, 404: MSG.eventNotFound },
    handler: async ({ params, query, caller, req }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      const { count, rows } = await listPromotionCodes(deps.db, event.id, pageRequest(query));
      return { status: 200, body: envelope(req, query, count, rows.map(toPromotionCode)) };
    },
  });

  route({
    method: 'get',
    path: '/events/{event_id}/promotion_codes/{promotion_code_id}',
    operationId: 'getPromotionCode',
    summary: 'One promotion code',
    tags: ['Promotion codes'],
    params: PromotionCodeParams,
    responses: { 200: { description: 'The promotion code', content: { 'application/json': { schema: PromotionCode } } }, 404: notFound },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      return { status: 200, body: toPromotionCode(await requireCode(event, params.promotion_code_id)) };
    },
  });

  route({
    method: 'put',
    path: '/events/{event_id}/promotion_codes/{promotion_code_id}',
    operationId: 'updatePromotionCode',
    summary: 'Update a promotion code (every field optional; registration_types replaces the list)',
    tags: ['Promotion codes'],
    params: PromotionCodeParams,
    body: PromotionCodeUpdate,
    responses: { 200: { description: 'Updated', content: { 'application/json': { schema: IdResponse } } }, 404: notFound },
    handler: async ({ params, body, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      // The code, its rules on the merged record and the write in one transaction (server/services/promotion-code-writes.ts).
      await changePromotionCode(deps.db, event, params.promotion_code_id, body);
      return { status: 200, body: { id: params.promotion_code_id } };
    },
  });

  route({
    method: 'delete',
    path: '/events/{event_id}/promotion_codes/{promotion_code_id}',
    operationId: 'deletePromotionCode',
    summary: 'Delete a promotion code',
    tags: ['Promotion codes'],
    params: PromotionCodeParams,
    responses: { 204: 'Deleted', 404: notFound },
    handler: async ({ params, caller }) => {
      const event = await scopedEvent(deps.db, caller, params.event_id);
      if (!(await deletePromotionCode(deps.db, event.id, params.promotion_code_id))) throw new NotFoundError(MSG.promotionCodeNotFound);
      return { status: 204 };
    },
  });

  return router;
}
