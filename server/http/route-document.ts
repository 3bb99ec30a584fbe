import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z, type ZodType } from 'zod';
import { NotFoundError } from './errors';
import type { Access } from './scope';
import { DetailResponse, DetailsResponse, FieldErrorsResponse } from '../schemas/fields';
import { MSG } from '../../core/messages';
import { MAX_CONCURRENT_UPLOADS } from './upload-slots';
import { API_TAG_NAMES } from './openapi';

/**
 * How a route declared with route() appears in the OpenAPI document: its operation, and every
 * answer it gives (the ones it declares and the error answers every route shares), which the
 * reply check then holds its answers to.
 */

/** What of a route's declaration (route.ts `RouteDefinition`) the document reads. */
interface Declaration {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  public?: boolean;
  params?: ZodType;
  query?: ZodType;
  body?: ZodType;
  documentedBody?: ZodType;
  bodyAlsoFromQuery?: boolean;
  jsonOnly?: boolean;
  rawBody?: { contentType: string; description: string; pool?: string };
  responses: Record<number, string | ResponseConfig>;
}

/**
 * The 404 a malformed id in the path answers: the same body as a well-formed id that does not
 * exist, so `/events/abc` and `/events/99999` cannot be told apart.
 */
export const PARAM_NOT_FOUND: Record<string, () => NotFoundError> = {
  group_id: () => new NotFoundError(MSG.groupNotFound),
  event_id: () => new NotFoundError(MSG.eventNotFound),
  key_id: () => new NotFoundError(MSG.apiKeyNotFound),
  user_id: () => new NotFoundError(MSG.userNotFound),
  registration_type_id: () => new NotFoundError(MSG.registrationTypeNotFound, 'details'),
  custom_question_id: () => new NotFoundError(MSG.customQuestionNotFound, 'details'),
  guest_id: () => new NotFoundError(MSG.guestNotFound, 'details'),
  session_id: () => new NotFoundError(MSG.sessionNotFound),
  track_id: () => new NotFoundError(MSG.trackNotFound),
  promotion_code_id: () => new NotFoundError(MSG.promotionCodeNotFound),
  checkin_id: () => new NotFoundError(MSG.checkinNotFound),
};

const ACCESS_NOTES: Record<Access, string> = {
  door: 'Any role (door or manager).',
  sync: "Any role (door or manager), or the venue credential of this event (the door role): a venue's laptops speak to each other with it.",
  'own-scan': 'Manager role; the door role for a check-in it made itself.',
  manager: 'Manager role (an API key or a signed-in user).',
  'signed-in-manager': 'A signed-in user of the manager role or an administrator; never an API key.',
  'signed-in-admin': 'A signed-in administrator of this laptop; never an API key.',
};

const ERROR_STATUSES = ['400', '401', '403', '404', '408', '409', '413', '415', '429', '503'];

function jsonReply(schema: ZodType, description: string): ResponseConfig {
  return { description, content: { 'application/json': { schema } } };
}

function schemaOf(config: ResponseConfig | undefined): ZodType | undefined {
  const media = config?.content?.['application/json'];
  return media && 'schema' in media && typeof (media.schema as ZodType).safeParse === 'function' ? (media.schema as ZodType) : undefined;
}

/** One schema that takes any of these bodies: each body schema once, unions flattened. */
function anyOf(schemas: ZodType[]): ZodType {
  const flat: ZodType[] = [];
  for (const schema of schemas) {
    for (const option of schema instanceof z.ZodUnion ? (schema.options as ZodType[]) : [schema]) if (!flat.includes(option)) flat.push(option);
  }
  return flat.length === 1 ? flat[0] : z.union(flat as [ZodType, ZodType, ...ZodType[]]);
}

/** The declared answer for a status with these bodies added to what it declares. */
function withBodies(declared: ResponseConfig | undefined, description: string, bodies: ZodType[]): ResponseConfig {
  const own = schemaOf(declared);
  return jsonReply(anyOf(own ? [own, ...bodies] : bodies), declared?.description ?? description);
}

/** The 404 bodies a route's path parameters answer (PARAM_NOT_FOUND), in the spec's own key for each. */
function notFoundBodies(params: ZodType | undefined): { bodies: ZodType[]; messages: string[] } {
  const bodies: ZodType[] = [];
  const messages: string[] = [];
  const keys = params instanceof z.ZodObject ? Object.keys(params.shape) : [];
  for (const key of keys) {
    const error = PARAM_NOT_FOUND[key]?.();
    if (!error) continue;
    bodies.push('details' in error.body ? DetailsResponse : DetailResponse);
    messages.push(JSON.stringify(error.body));
  }
  return { bodies, messages };
}

/**
 * Every answer a route gives, as the document lists it and the reply check holds it to: the
 * declared ones, with each error status's body in the spec's shapes (server/schemas/fields.ts).
 * A 400 is field errors or `{detail}` (a body that is not a JSON object) besides any it declares;
 * a 404 is each path parameter's not-found body besides any it declares; 413 where a body can be
 * sent; 401 and 403 as the route's role says; 503 on every route (the database busy or away).
 */
export function responseConfigs(def: Declaration, access: Access): Record<string, ResponseConfig> {
  const declared: Record<string, ResponseConfig> = {};
  for (const [status, value] of Object.entries(def.responses)) declared[status] = typeof value === 'string' ? { description: value } : value;
  const out: Record<string, ResponseConfig> = { ...declared };
  out['400'] = withBodies(declared['400'], 'Refused input: field errors, or `{detail}` for a body that is not a JSON object', [FieldErrorsResponse, DetailResponse]);
  const notFound = notFoundBodies(def.params);
  if (notFound.bodies.length > 0) {
    const byParams = `A path id unknown or out of the caller's scope: ${notFound.messages.join(', ')}`;
    const description = declared['404']?.description ? `${declared['404'].description.replace(/\.?$/, '.')} ${byParams}` : byParams;
    out['404'] = withBodies({ ...declared['404'], description }, description, notFound.bodies);
  } else if (declared['404'] && !schemaOf(declared['404'])) out['404'] = withBodies(declared['404'], '', [DetailResponse]);
  // An error declared by its message alone answers it as `{detail}`.
  for (const status of ['401', '403', '409', '429']) if (declared[status] && !schemaOf(declared[status])) out[status] = withBodies(declared[status], '', [DetailResponse]);
  if (def.jsonOnly) out['415'] ??= jsonReply(DetailResponse, MSG.jsonOnly);
  // The JSON parser reads a body on every route before the route does; an upload sets its own limit.
  out['413'] ??= jsonReply(DetailResponse, def.rawBody ? 'The upload is larger than this laptop takes' : `${MSG.bodyTooLarge} (a JSON body over 1 MB)`);
  if (def.rawBody) {
    out['503'] ??= jsonReply(DetailResponse, MSG.uploadsBusy(MAX_CONCURRENT_UPLOADS));
    out['429'] ??= jsonReply(DetailResponse, MSG.uploadsBusyForCaller(1));
    out['408'] ??= jsonReply(DetailResponse, `${MSG.uploadIdle(20)} Or: ${MSG.uploadTooSlow(2048)} (the bounds are settings)`);
  }
  out['503'] = withBodies(out['503'], `${MSG.databaseBusy} / ${MSG.databaseUnavailable}`, [DetailResponse]);
  if (!def.public) {
    out['401'] ??= jsonReply(DetailResponse, MSG.sessionExpired);
    const forbidden = access === 'signed-in-manager' ? `${MSG.roleNotAllowed} (an API key: ${MSG.keysCannotManage})` : MSG.roleNotAllowed;
    if (access !== 'door') out['403'] ??= jsonReply(DetailResponse, forbidden);
  }
  for (const status of ERROR_STATUSES) {
    if (out[status] && !schemaOf(out[status])) throw new Error(`${def.method.toUpperCase()} ${def.path}: its ${status} answer needs a body schema`);
  }
  return out;
}

/** Routes that take their body fields from the query string too document them as (optional) query parameters. */
function bodyFieldsAsQuery(def: { body?: ZodType; bodyAlsoFromQuery?: boolean }) {
  if (!def.bodyAlsoFromQuery || !(def.body instanceof z.ZodObject)) return undefined;
  const shape = def.body.shape as Record<string, ZodType>;
  const fields = Object.entries(shape).map(([name, field]) => [
    name,
    field.optional().openapi({ param: { description: `The body's \`${name}\`, also taken from the query string (the spec documents it there); a body value wins.` } }),
  ]);
  return z.object(Object.fromEntries(fields));
}


/** Whether the body may be left out: a schema that takes `{}` reads a missing body as `{}`. */
function bodyRequired(schema: ZodType): boolean {
  return !schema.safeParse({}).success;
}

function requestBody(def: Declaration) {
  const json = def.documentedBody ?? def.body;
  if (json) return { required: bodyRequired(json), content: { 'application/json': { schema: json } } };
  if (def.rawBody) return { required: true, description: def.rawBody.description, content: { [def.rawBody.contentType]: { schema: { type: 'string' as const, format: 'binary' } } } };
  return undefined;
}

/** The route in the OpenAPI document (one operation: a trailing slash is the same route, said once in the document). */
export function documentRoute(registry: OpenAPIRegistry, def: Declaration, access: Access, responses: Record<string, ResponseConfig>): void {
  if (!API_TAG_NAMES.includes(def.tags[0])) throw new Error(`${def.operationId}: tag ${def.tags[0]} is not in the document's list`);
  const who = def.public ? undefined : `Who may call it: ${ACCESS_NOTES[access]}`;
  const fromQuery = def.bodyAlsoFromQuery ? "Each body field may also be sent as a query parameter of the same name (the spec documents them there); the body's value wins." : undefined;
  registry.registerPath({
    method: def.method,
    path: def.path,
    operationId: def.operationId,
    summary: def.summary,
    description: [def.description, fromQuery, who].filter(Boolean).join('\n\n') || undefined,
    tags: def.tags,
    security: def.public ? [] : [{ Token: [] }],
    request: { params: def.params as never, query: (def.query ?? bodyFieldsAsQuery(def)) as never, body: requestBody(def) },
    responses,
  });
}

