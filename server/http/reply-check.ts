import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import type { ZodType } from 'zod';

/**
 * How a reply departs from the responses its route declares (and /openapi.json documents): a
 * status not declared, a body where none is declared, a body the schema refuses, or a field the
 * schema does not list (zod strips those silently, so they are found by comparing the sent JSON
 * with what the schema kept). Empty when the reply is as documented.
 *
 * Run only when `checkReplies` is on (the test servers), so drift fails the suite; a production
 * server never calls it.
 */
export function replyDrift(responses: Record<string, string | ResponseConfig>, status: number, body: unknown): string[] {
  const declared = responses[status];
  if (declared === undefined) return [`status ${status} is not declared`];
  const media = typeof declared === 'string' ? undefined : declared.content?.['application/json'];
  const schema = media && 'schema' in media ? (media.schema as ZodType) : undefined;
  if (body === undefined) return schema && !schema.safeParse(undefined).success ? [`status ${status} declares a body but none was sent`] : [];
  if (schema === undefined || typeof schema.safeParse !== 'function') return [`status ${status} declares no JSON body but one was sent`];
  // What the client receives: a Buffer is JSON text built by the database; anything else is serialised.
  const sent: unknown = JSON.parse(Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body));
  const parsed = schema.safeParse(sent);
  if (!parsed.success) return parsed.error.issues.map((issue) => `${pathText(issue.path)}: ${issue.message}`);
  const problems = new Set<string>();
  undocumentedFields(sent, parsed.data, [], problems);
  return [...problems];
}

/** Fields present in what was sent but dropped by the schema's parse: answered, yet undocumented. */
function undocumentedFields(sent: unknown, kept: unknown, path: PropertyKey[], problems: Set<string>): void {
  if (Array.isArray(sent) && Array.isArray(kept)) {
    // Items share a path (`results.*.field`), so a field missing from every item is one problem.
    sent.forEach((item, i) => undocumentedFields(item, kept[i], [...path, '*'], problems));
    return;
  }
  if (!isPlainObject(sent) || !isPlainObject(kept)) return;
  for (const key of Object.keys(sent)) {
    if (!(key in kept)) problems.add(`${pathText([...path, key])}: answered but not in the schema`);
    else undocumentedFields(sent[key], kept[key], [...path, key], problems);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pathText(path: PropertyKey[]): string {
  return path.length === 0 ? '(body)' : path.map(String).join('.');
}

/** Where route() leaves a request's declared answers (`res.locals`, test servers only) for the error handler to hold its answer to. */
export const DECLARED_REPLIES = 'doorlistDeclaredReplies';

export interface DeclaredReplies {
  /** `PUT /events/{event_id}`, for the message. */
  route: string;
  responses: Record<string, string | ResponseConfig>;
}

/**
 * How an error answer departs from its route's declaration, as replyDrift tells a handler's
 * answer. A 500 is a fault whatever its body, and is not held to a schema.
 */
export function errorDrift(declared: DeclaredReplies | undefined, status: number, body: unknown): string[] {
  if (declared === undefined || status === 500) return [];
  return replyDrift(declared.responses, status, body);
}
