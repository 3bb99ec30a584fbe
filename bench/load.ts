import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** The body of the i-th request (each request can scan a different guest). */
  body?: (i: number) => string;
  /** The path of the i-th request, when it varies. */
  path?: (i: number) => string;
  connections: number;
  amount: number;
  /** The server's CPU clock (ms), read before and after the run. */
  serverCpuMs?: () => number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Server CPU (all threads) per request, in µs: a figure other work on the machine barely moves. */
  serverCpuUsPerRequest?: number;
}

/** Drives `amount` requests over `connections` keep-alive connections with autocannon. */
export async function drive(options: LoadOptions): Promise<LoadResult> {
  let i = 0;
  const cpuBefore = options.serverCpuMs?.();
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    amount: options.amount,
    timeout: 30,
    requests: [
      {
        method: options.method,
        headers: { 'content-type': 'application/json', ...options.headers },
        setupRequest: (req) => {
          const n = i++;
          return {
            ...req,
            ...(options.path ? { path: options.path(n) } : {}),
            ...(options.body ? { body: options.body(n) } : {}),
          };
        },
      },
    ],
  });
  const seconds = result.duration;
  const cpuAfter = options.serverCpuMs?.();
  return {
    requestsPerSecond: Math.round(result.requests.total / seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    serverCpuUsPerRequest: cpuBefore === undefined || cpuAfter === undefined ? undefined : Math.round(((cpuAfter - cpuBefore) * 1000) / result.requests.total),
  };
}
