import { percentile, round, type Log, type Metric } from './common';
import { barcodeOf } from './seed';

/** The door never waits behind long work: scan p99 while reads of the whole event run beside it. */
export const SCAN_BESIDE_TARGETS = { p99Ms: 250 };

// Door screens polling the stats at once (each poll reads the whole 100k-guest event).
const POLLERS = 4;

export interface ScanBesideInput {
  baseUrl: string;
  key: string;
  eventId: number;
  /** Guests from this index on are not scanned yet. */
  unscannedFrom: number;
}

/** One door station scanning guest after guest until `busy` settles; answers the latencies (ms), sorted. */
async function scanUntil(input: ScanBesideInput, from: number, busy: Promise<unknown>): Promise<number[]> {
  let done = false;
  void busy.finally(() => (done = true));
  const latencies: number[] = [];
  const url = `${input.baseUrl}/events/${input.eventId}/checkins`;
  const headers = { 'content-type': 'application/json', authorization: `Token ${input.key}` };
  for (let i = from; !done; i++) {
    const started = performance.now();
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ barcode: barcodeOf(i), uid: `beside-${i}`, station: 'Beside' }) });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`scan beside reads: ${res.status}`);
    latencies.push(performance.now() - started);
  }
  return latencies.sort((a, b) => a - b);
}

function figures(what: string, latencies: number[], workMs: number): Metric[] {
  const p99 = round(percentile(latencies, 99), 1);
  return [
    { section: 'beside', name: `scan p50 during ${what}`, value: round(percentile(latencies, 50), 1), unit: 'ms' },
    { section: 'beside', name: `scan p99 during ${what}`, value: p99, unit: 'ms', target: `≤ ${SCAN_BESIDE_TARGETS.p99Ms}`, ok: p99 <= SCAN_BESIDE_TARGETS.p99Ms },
    { section: 'beside', name: `${what} took`, value: Math.round(workMs), unit: 'ms' },
  ];
}

/**
 * Scans at one door while (1) door screens poll the stats back to back and (2) an event
 * export streams the whole event: neither may hold a scan up. The scans go to guests not
 * scanned before, so every one is a real 201 that writes.
 */
export async function benchScanBesideReads(input: ScanBesideInput, log: Log): Promise<{ metrics: Metric[]; scanned: number }> {
  const auth = { authorization: `Token ${input.key}` };
  const pollsFor = async (ms: number) => {
    const until = Date.now() + ms;
    let polls = 0;
    await Promise.all(
      Array.from({ length: POLLERS }, async () => {
        while (Date.now() < until) {
          const res = await fetch(`${input.baseUrl}/events/${input.eventId}/stats`, { headers: auth });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`stats: ${res.status}`);
          polls++;
        }
      }),
    );
    return polls;
  };
  const pollStarted = performance.now();
  const polling = pollsFor(5000);
  const duringStats = await scanUntil(input, input.unscannedFrom, polling);
  const polls = await polling;
  const pollMs = performance.now() - pollStarted;
  log(`  scan beside stats polls: p50 ${round(percentile(duringStats, 50), 1)} ms, p99 ${round(percentile(duringStats, 99), 1)} ms (${duringStats.length} scans; ${polls} stats reads, ${Math.round(pollMs / (polls / POLLERS))} ms each)`);

  const exportStarted = performance.now();
  const exporting = fetch(`${input.baseUrl}/events/${input.eventId}/export`, { headers: auth }).then(async (res) => {
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`export: ${res.status}`);
  });
  const duringExport = await scanUntil(input, input.unscannedFrom + duringStats.length, exporting);
  await exporting;
  const exportMs = performance.now() - exportStarted;
  log(`  scan beside an export: p50 ${round(percentile(duringExport, 50), 1)} ms, p99 ${round(percentile(duringExport, 99), 1)} ms (${duringExport.length} scans; export ${Math.round(exportMs)} ms)`);
  return {
    metrics: [...figures(`${POLLERS} stats pollers`, duringStats, pollMs), ...figures('an event export', duringExport, exportMs)],
    scanned: duringStats.length + duringExport.length,
  };
}
