import autocannon from 'autocannon';
import { machineCpuMs } from './common';

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
  /** Its main thread's CPU clock (ms). */
  serverMainThreadCpuMs?: () => number;
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
  /** The server's main thread's share of that. */
  serverMainThreadUsPerRequest?: number;
  /** CPU that neither the server nor this load generator used during the run (other work on the machine), in ms. */
  otherCpuMs: number;
}

/** Drives `amount` requests over `connections` keep-alive connections with autocannon. */
export async function drive(options: LoadOptions): Promise<LoadResult> {
  let i = 0;
  const cpuBefore = options.serverCpuMs?.();
  const mainBefore = options.serverMainThreadCpuMs?.();
  const machineBefore = machineCpuMs();
  const selfBefore = process.cpuUsage();
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    amount: options.amount,
    timeout: 30,
    // autocannon notices the last answer at its next sample: with its default of a second, a
    // run's duration (and requests/s) came in whole seconds (20,000 guests in 6.0 or 7.01 s).
    sampleInt: 50,
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
  const mainAfter = options.serverMainThreadCpuMs?.();
  const self = process.cpuUsage(selfBefore);
  const perRequest = (before?: number, after?: number) =>
    before === undefined || after === undefined ? undefined : Math.round(((after - before) * 1000) / result.requests.total);
  return {
    requestsPerSecond: Math.round(result.requests.total / seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    serverCpuUsPerRequest: perRequest(cpuBefore, cpuAfter),
    serverMainThreadUsPerRequest: perRequest(mainBefore, mainAfter),
    otherCpuMs: Math.max(0, Math.round(machineCpuMs() - machineBefore - (cpuAfter ?? 0) + (cpuBefore ?? 0) - (self.user + self.system) / 1000)),
  };
}
