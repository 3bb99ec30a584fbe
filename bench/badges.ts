import { percentile, round, type Log, type Metric } from './common';
import { barcodeOf } from './seed';

/** Issue 39: a badge under 50 ms, 1,000 in one PDF under 10 s, and the door never waits behind them. */
export const BADGE_TARGETS = { oneMs: 50, thousandS: 10, scanP99Ms: 250 };

export interface BadgeBenchInput {
  baseUrl: string;
  key: string;
  eventId: number;
  /** Guests from this index on are not scanned yet. */
  unscannedFrom: number;
  /** The server's CPU so far (every thread), ms: what a badge costs whatever else the machine runs. */
  serverCpuMs: () => number;
}

/**
 * One badge at a time (guest after guest, as a door prints them), then 1,000 in one PDF while
 * a door station scans beside it. Times are the client's, request to last byte.
 */
export async function benchBadges(input: BadgeBenchInput, log: Log): Promise<{ metrics: Metric[]; scanned: number }> {
  const auth = { authorization: `Token ${input.key}` };
  const page = await fetch(`${input.baseUrl}/events/${input.eventId}/guests?page_size=1000`, { headers: auth });
  const ids = ((await page.json()) as { results: { id: number }[] }).results.map((g) => g.id);
  const pdf = async (path: string) => {
    const started = performance.now();
    const res = await fetch(`${input.baseUrl}/events/${input.eventId}${path}`, { headers: auth });
    const bytes = (await res.arrayBuffer()).byteLength;
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return { ms: performance.now() - started, bytes };
  };

  // The first badges load the fonts and warm the code: not counted.
  for (const id of ids.slice(0, 5)) await pdf(`/guests/${id}/badge.pdf?station=Bench`);
  const singles: number[] = [];
  let singleBytes = 0;
  const singlesCpu = input.serverCpuMs();
  for (const id of ids.slice(5, 65)) {
    const one = await pdf(`/guests/${id}/badge.pdf?station=Bench`);
    singles.push(one.ms);
    singleBytes = one.bytes;
  }
  const oneCpu = round((input.serverCpuMs() - singlesCpu) / singles.length, 1);
  singles.sort((a, b) => a - b);
  const oneMedian = round(percentile(singles, 50), 1);
  log(`  one badge: median ${oneMedian} ms, p95 ${round(percentile(singles, 95), 1)} ms, server CPU ${oneCpu} ms (${singles.length} badges, ${singleBytes} bytes each)`);

  // 1,000 badges in one PDF while a door scans guest after guest beside it.
  let done = false;
  const sheetCpu = input.serverCpuMs();
  const sheet = pdf(`/badges.pdf?guest_ids=${ids.join(',')}&station=Bench`).finally(() => (done = true));
  const scans: number[] = [];
  for (let i = input.unscannedFrom; !done; i++) {
    const started = performance.now();
    const res = await fetch(`${input.baseUrl}/events/${input.eventId}/checkins`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ barcode: barcodeOf(i), uid: `badges-${i}`, station: 'Beside badges' }),
    });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`scan beside badges: ${res.status}`);
    scans.push(performance.now() - started);
  }
  const thousand = await sheet;
  // Scans included: a few milliseconds each, against seconds of badges.
  const thousandCpu = round((input.serverCpuMs() - sheetCpu) / 1000, 2);
  scans.sort((a, b) => a - b);
  const seconds = round(thousand.ms / 1000, 2);
  const scanP99 = round(percentile(scans, 99), 1);
  log(`  ${ids.length} badges in one PDF: ${seconds} s (server CPU ${thousandCpu} s), ${round(thousand.bytes / 2 ** 20, 1)} MB; scans beside it p50 ${round(percentile(scans, 50), 1)} ms, p99 ${scanP99} ms (${scans.length} scans)`);
  return {
    metrics: [
      { section: 'badges', name: 'one badge PDF (median, request to last byte)', value: oneMedian, unit: 'ms', target: `< ${BADGE_TARGETS.oneMs}`, ok: oneMedian < BADGE_TARGETS.oneMs },
      { section: 'badges', name: 'one badge PDF, server CPU', value: oneCpu, unit: 'ms' },
      { section: 'badges', name: `${ids.length} badges in one PDF`, value: seconds, unit: 's', target: `< ${BADGE_TARGETS.thousandS}`, ok: seconds < BADGE_TARGETS.thousandS },
      { section: 'badges', name: `${ids.length} badges in one PDF, server CPU (scans beside it included)`, value: thousandCpu, unit: 's' },
      { section: 'badges', name: `${ids.length}-badge PDF size`, value: round(thousand.bytes / 2 ** 20, 2), unit: 'MB' },
      { section: 'badges', name: `scan p99 while ${ids.length} badges render`, value: scanP99, unit: 'ms', target: `≤ ${BADGE_TARGETS.scanP99Ms}`, ok: scanP99 <= BADGE_TARGETS.scanP99Ms },
    ],
    scanned: scans.length,
  };
}
