import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import { MAX_PAGE_SIZE } from './pagination';

/** The document's tags, in the order a reader meets them; every operation has one of these. */
export const API_TAGS = [
  { name: 'Authentication', description: 'Signing in and out with a username and password, and who is signed in.' },
  { name: 'First run', description: 'Creating the first administrator on a fresh laptop.' },
  { name: 'Groups', description: 'The organisations that own events, API keys and users.' },
  { name: 'API keys', description: "A group's keys for devices and programs (shown once, on create)." },
  { name: 'Users', description: "A group's signed-in users and their roles." },
  { name: 'Events', description: 'Events, their settings, and duplicating one.' },
  { name: 'Registration types', description: "An event's registration types (ticket kinds) with their prices." },
  { name: 'Custom questions', description: 'Questions asked of guests when they register.' },
  { name: 'Guests', description: "An event's guest list." },
  { name: 'Check-in', description: 'Scans at the event door and at session doors, their undo, and live stats.' },
  { name: 'Sessions', description: "An event's sessions and the guests registered for each." },
  { name: 'Session tracks', description: 'Tracks that group sessions.' },
  { name: 'Promotion codes', description: 'Discount codes for registration.' },
  { name: 'Badges', description: 'Printed badges: the layout, one PDF per guest or a batch, and what was printed.' },
  { name: 'Event files', description: 'An event carried between laptops as one file: export and import.' },
  { name: 'Sync', description: 'Following an event on another Doorlist server, and the changes feed it reads.' },
  { name: 'LAN', description: "Sharing this laptop with phones and laptops on the venue's network." },
] as const;

export type ApiTag = (typeof API_TAGS)[number]['name'];
export const API_TAG_NAMES: readonly string[] = API_TAGS.map((tag) => tag.name);

/**
 * The description of each parameter that means the same on every route (path ids, paging); a
 * parameter met on one route only says itself in its schema (`.openapi({ param: { description } })`).
 */
const PARAMETER_DESCRIPTIONS: Record<string, string> = {
  'path:event_id': "The event's id.",
  'path:group_id': "The group's id.",
  'path:key_id': "The API key's id.",
  'path:user_id': "The user's id.",
  'path:guest_id': "The guest's id.",
  'path:session_id': "The session's id.",
  'path:track_id': "The track's id.",
  'path:registration_type_id': "The registration type's id.",
  'path:custom_question_id': "The custom question's id.",
  'path:promotion_code_id': "The promotion code's id.",
  'path:checkin_id': "The check-in's id.",
  'query:page': 'The page to answer, from 1.',
  'query:page_size': `Records per page (default 250); a larger value than ${MAX_PAGE_SIZE} is answered as ${MAX_PAGE_SIZE}.`,
  'query:guest_id': "Only this guest's records (the guest's id).",
  'query:session_id': "Only this session's records (the session's id).",
  'query:track_id': "Only this track's sessions (the track's id).",
  'query:group_id': "Only this group's records (the group's id); the caller's own groups otherwise.",
  'query:parent_id': "Only the groups directly below this one (the group's id).",
  'query:registration_type': "Only guests of this registration type (its id).",
  'query:not_printed': 'true: only guests with no badge printed yet.',
  'query:timestamp': 'Unix seconds or an ISO datetime (UTC unless it carries a zone): only records modified at or after it.',
};

const DESCRIPTION = `Offline check-in service for the door and the venue's LAN.

- **Authorization**: every route but sign-in and first-run set-up needs \`Authorization: Token <token or API key>\` (*Authorize* above). Each operation says the least role it needs.
- **Trailing slash**: every path answers the same with or without one slash at its end (\`/events/\` is \`/events\`); the document lists each path once, without it.
- **Errors**: every error answer is JSON in one of the spec's shapes: \`FieldErrors\` (\`{"field": ["message"]}\`, a 400), \`Detail\` (\`{"detail": "message"}\`), \`Details\` (\`{"details": "message"}\`, where the spec writes it so), and the scan's refusals (\`ScanRefused*\`). Each operation lists the ones it answers, by status.
- **Methods**: a method a path does not have answers 405 \`{"detail": "Method \\"PUT\\" not allowed."}\` with an \`Allow\` header listing those it has; an unknown path answers 404 \`{"detail": "Not found."}\`.
- **Busy**: any route may answer 503 \`{detail}\` while the database is busy or away; try again.`;

function createRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'Token', {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: '`Token <API key or token>`',
  });
  return registry;
}

type Document = ReturnType<OpenApiGeneratorV3['generateDocument']>;

/** Each parameter without a description of its own gets the shared one. */
function describeParameters(document: Document): void {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item as Record<string, { parameters?: { in: string; name: string; description?: string }[] }>)) {
      for (const parameter of operation.parameters ?? []) {
        // One with neither is left without: the document's lint (npm run lint:api) refuses it.
        parameter.description ??= PARAMETER_DESCRIPTIONS[`${parameter.in}:${parameter.name}`];
      }
    }
  }
}

/** The OpenAPI document of every route registered, generated from their zod schemas. */
function openApiDocument(registry: OpenAPIRegistry): Document {
  const document = new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Doorlist event-management API',
      version: '1.0.0',
      description: DESCRIPTION,
    },
    servers: [{ url: '/api/v1' }],
    tags: API_TAGS.map((tag) => ({ ...tag })),
  });
  describeParameters(document);
  return document;
}

/**
 * Every route's documentation, registered and generated into the OpenAPI document on its first
 * request rather than in every start (zod-to-openapi's registry and generator, the routes'
 * answer schemas: tens of ms of CPU before the listening line).
 */
export class RouteDocuments {
  private readonly routes: ((registry: OpenAPIRegistry) => void)[] = [];
  private built: Document | undefined;

  /** A route's documentation, written into the registry when the document is built. */
  add(document: (registry: OpenAPIRegistry) => void): void {
    this.routes.push(document);
    this.built = undefined;
  }

  document(): Document {
    if (this.built) return this.built;
    const registry = createRegistry();
    for (const document of this.routes) document(registry);
    this.built = openApiDocument(registry);
    return this.built;
  }
}
