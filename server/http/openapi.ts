import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';

export function createRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'Token', {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: '`Token <API key or token>`',
  });
  return registry;
}

/** The OpenAPI document of every route registered so far, generated from their zod schemas. */
export function openApiDocument(registry: OpenAPIRegistry) {
  return new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Doorlist event-management API',
      version: '1.0.0',
      description: 'Offline check-in service. Every route but sign-in and first-run set-up needs `Authorization: Token <token or API key>` (*Authorize* above).',
    },
    servers: [{ url: '/api/v1' }],
  });
}
