import type { TestServer } from './server';

export interface Operation {
  method: string;
  path: string;
  /** Documented with an empty `security`: callable without a token. */
  public: boolean;
}

/** Every operation the service documents, so a route added later is covered without editing a test. */
export async function documentedOperations(server: TestServer): Promise<Operation[]> {
  const doc = (await server.get('/openapi.json', { token: null })).body;
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, { security?: unknown[] }>>(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      ops.push({ method: method.toUpperCase(), path, public: Array.isArray(op.security) && op.security.length === 0 });
    }
  }
  return ops;
}
