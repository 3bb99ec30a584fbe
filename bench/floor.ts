import type { Log, Metric } from './common';
import { spawnServer } from './common';
import { drive, type LoadResult } from './load';

// The least any HTTP server on this machine can do per request: read the body, answer JSON.
const FLOOR_SERVER = `
const http = require('node:http');
http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const out = JSON.stringify({ status: 'checked_in', length: body.length });
    res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
    res.end(out);
  });
}).listen(0, '127.0.0.1', function () { console.log('floor listening on http://127.0.0.1:' + this.address().port); });
`;

/** A bare node:http server, in its own process like Doorlist, under the check-in load. */
export async function benchFloor(load: { connections: number; amount: number; warmup: number }, log: Log): Promise<{ metrics: Metric[]; result: LoadResult }> {
  const floor = await spawnServer(['-e', FLOOR_SERVER], {}, /floor listening on (http:\/\/\S+)/);
  try {
    const body = (i: number) => JSON.stringify({ barcode: `G${String(i).padStart(7, '0')}`, uid: `floor-${i}`, station: 'Bench door' });
    const url = `${floor.url}/api/v1/events/1/checkins`;
    await drive({ url, method: 'POST', body, connections: load.connections, amount: load.warmup });
    const result = await drive({ url, method: 'POST', body, connections: load.connections, amount: load.amount, serverCpuMs: floor.cpuMs });
    log(`  floor: ${result.requestsPerSecond} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${result.serverCpuUsPerRequest} µs server CPU per request`);
    return {
      result,
      metrics: [
        { section: 'floor', name: 'bare node:http requests/s', value: result.requestsPerSecond, unit: 'req/s' },
        { section: 'floor', name: 'bare node:http p99', value: result.p99Ms, unit: 'ms' },
        { section: 'floor', name: 'bare node:http server CPU per request', value: result.serverCpuUsPerRequest ?? NaN, unit: 'µs' },
      ],
    };
  } finally {
    await floor.stop();
  }
}
