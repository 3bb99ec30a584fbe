import type { Log, Metric } from './common';
import { round, spawnServer } from './common';
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

// The same answer through Express with the JSON body parser and a parameterised route, as
// every Doorlist route is served: what the framework alone costs before any of Doorlist's work.
// Its server builds requests and responses with the app's prototypes, as Doorlist's does
// (messageClassesOf in server/app.ts).
const EXPRESS_FLOOR_SERVER = `
const http = require('node:http');
const express = require('express');
const app = express();
app.disable('x-powered-by');
app.use(express.json());
app.post('/api/v1/events/:event_id/checkins', (req, res) => {
  res.status(201).json({ status: 'checked_in', event: req.params.event_id, barcode: req.body.barcode });
});
function AppRequest(socket) { http.IncomingMessage.call(this, socket); }
AppRequest.prototype = app.request;
function AppResponse(req, options) { http.ServerResponse.call(this, req, options); }
AppResponse.prototype = app.response;
http.createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }, app).listen(0, '127.0.0.1', function () { console.log('floor listening on http://127.0.0.1:' + this.address().port); });
`;

/** Requests one client sends one after another, as the check-in's one sequential scanner. */
const SEQUENTIAL_REQUESTS = 1000;

/**
 * One floor server, in its own process like Doorlist, under the check-in load, then with one
 * client waiting for each answer (the floor of the one-scanner latency).
 */
async function driveFloor(source: string, load: { connections: number; amount: number; warmup: number }): Promise<{ loaded: LoadResult; sequential: LoadResult; peakRssMb: number }> {
  const floor = await spawnServer(['-e', source], {}, /floor listening on (http:\/\/\S+)/);
  try {
    const body = (i: number) => JSON.stringify({ barcode: `G${String(i).padStart(7, '0')}`, uid: `floor-${i}`, station: 'Bench door' });
    const url = `${floor.url}/api/v1/events/1/checkins`;
    await drive({ url, method: 'POST', body, connections: load.connections, amount: load.warmup });
    const loaded = await drive({ url, method: 'POST', body, connections: load.connections, amount: load.amount, serverCpuMs: floor.cpuMs });
    const sequential = await drive({ url, method: 'POST', body, connections: 1, amount: SEQUENTIAL_REQUESTS });
    return { loaded, sequential, peakRssMb: round(floor.peakRssMb(), 1) };
  } finally {
    await floor.stop();
  }
}

/** The bare node:http floor the check-in is held against, and Express's own floor beside it. */
export async function benchFloor(load: { connections: number; amount: number; warmup: number }, log: Log): Promise<{ metrics: Metric[]; result: LoadResult }> {
  const { loaded: result, sequential, peakRssMb } = await driveFloor(FLOOR_SERVER, load);
  log(`  floor: ${result.requestsPerSecond} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${result.serverCpuUsPerRequest} µs server CPU per request, peak RSS ${peakRssMb} MB; one client: p50 ${sequential.p50Ms} ms, p99 ${sequential.p99Ms} ms`);
  const { loaded: express, sequential: expressSequential, peakRssMb: expressPeakRssMb } = await driveFloor(EXPRESS_FLOOR_SERVER, load);
  log(`  Express floor: ${express.requestsPerSecond} req/s, p50 ${express.p50Ms} ms, p99 ${express.p99Ms} ms, ${express.serverCpuUsPerRequest} µs server CPU per request, peak RSS ${expressPeakRssMb} MB; one client: p50 ${expressSequential.p50Ms} ms, p99 ${expressSequential.p99Ms} ms`);
  return {
    result,
    metrics: [
      { section: 'floor', name: 'bare node:http requests/s', value: result.requestsPerSecond, unit: 'req/s' },
      { section: 'floor', name: 'bare node:http p99', value: result.p99Ms, unit: 'ms' },
      { section: 'floor', name: 'bare node:http server CPU per request', value: result.serverCpuUsPerRequest ?? NaN, unit: 'µs' },
      { section: 'floor', name: 'bare node:http one sequential client p99', value: sequential.p99Ms, unit: 'ms' },
      // The same load's peak memory, no database: what Node and V8's default heap policy take.
      { section: 'floor', name: 'bare node:http peak RSS', value: peakRssMb, unit: 'MB' },
      { section: 'floor', name: 'Express alone requests/s', value: express.requestsPerSecond, unit: 'req/s' },
      { section: 'floor', name: 'Express alone server CPU per request', value: express.serverCpuUsPerRequest ?? NaN, unit: 'µs' },
      { section: 'floor', name: 'Express alone / bare node:http throughput', value: round(express.requestsPerSecond / result.requestsPerSecond), unit: 'ratio' },
      { section: 'floor', name: 'Express alone one sequential client p99', value: expressSequential.p99Ms, unit: 'ms' },
      { section: 'floor', name: 'Express alone peak RSS', value: expressPeakRssMb, unit: 'MB' },
    ],
  };
}
