import type { paths } from './api-types.generated';

/**
 * A client typed by the types openapi-typescript generates from /api/v1/openapi.json
 * (`npm run api:types`, run by `npm run typecheck`): a path, method, parameter, body or answer
 * field the document does not have fails the typecheck, so the document cannot drift from what
 * a generated client relies on.
 */
type Method = 'get' | 'post' | 'put' | 'delete';

type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type MethodsOf<P extends keyof paths> = { [M in Method]: paths[P][M] extends undefined ? never : M }[Method];

type Parameters<O> = O extends { parameters: infer X } ? X : never;
type PathOf<O> = Parameters<O> extends { path: infer X } ? X : never;
type QueryOf<O> = Parameters<O> extends { query?: infer X } ? X : never;
type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** Every answer the document gives the operation: `status` narrows `body` to that status's schema. */
export type Answer<O> = O extends { responses: infer R }
  ? { [S in keyof R]: { status: S; body: R[S] extends { content: { 'application/json': infer J } } ? J : unknown; headers: Headers } }[keyof R]
  : never;

export type CallOptions<O> = ([PathOf<O>] extends [never] ? { path?: undefined } : { path: PathOf<O> }) & {
  query?: QueryOf<O>;
  body?: BodyOf<O>;
  /** Raw bytes for an upload route (event files, CSV), sent with their content type. */
  raw?: { contentType: string; data: string | Uint8Array<ArrayBuffer> };
  /** `null` sends no Authorization header. */
  token?: string | null;
};

export class TypedClient {
  constructor(
    /** `http://127.0.0.1:PORT/api/v1` */
    private readonly baseUrl: string,
    private readonly token: string | null,
  ) {}

  async call<P extends keyof paths, M extends MethodsOf<P>>(method: M, path: P, options: CallOptions<Operation<P, M>>): Promise<Answer<Operation<P, M>>> {
    const pathParams = (options.path ?? {}) as Record<string, string | number>;
    const filled = String(path).replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(pathParams[name])));
    const url = new URL(this.baseUrl + filled);
    for (const [name, value] of Object.entries((options.query ?? {}) as Record<string, unknown>)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {};
    const token = options.token === undefined ? this.token : options.token;
    if (token !== null) headers.authorization = `Token ${token}`;
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (options.raw) {
      headers['content-type'] = options.raw.contentType;
      body = options.raw.data;
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const res = await fetch(url, { method: method.toUpperCase(), headers, body });
    const text = await res.text();
    const json = text && (res.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as unknown) : text;
    return { status: res.status, body: json, headers: res.headers } as Answer<Operation<P, M>>;
  }
}
