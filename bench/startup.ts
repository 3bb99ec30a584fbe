import { percentile, round, spawnServer, type Log, type Metric } from './common';

/** Target on the project's 2-core machine, warm (the files in the page cache). */
export const STARTUP_TARGETS = { listeningMs: 300 };

export interface StartupBenchInput {
  /** Node's arguments for the server: `out/main/serve.js` as `npm run serve` runs it. */
  serverArgs: string[];
  /** The server's environment: an existing database, with its administrator already in it. */
  env: Record<string, string>;
  /** Counted starts, after one start that is not counted (it warms the page cache and writes the code cache). */
  runs?: number;
}

const READY = /Doorlist listening on (http:\/\/\S+)/;
// The floor: Node itself starting and printing a line, on the same machine at the same time.
const BARE_NODE = ['-e', "process.stdout.write('Doorlist listening on http://floor\\n'); setInterval(() => {}, 60000)"];

/** Sorted ms from spawn to the ready line, and the process's CPU (every thread) at that line. */
async function timeStarts(args: string[], env: Record<string, string>, runs: number): Promise<{ wall: number[]; cpu: number[] }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let n = 0; n <= runs; n++) {
    const started = process.hrtime.bigint();
    const server = await spawnServer(args, env, READY);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const cpuMs = server.cpuMs();
    await server.stop();
    if (n === 0) continue;
    wall.push(ms);
    cpu.push(cpuMs);
  }
  return { wall: wall.sort((a, b) => a - b), cpu: cpu.sort((a, b) => a - b) };
}

/**
 * Starts the server again and again on an existing database and times each start from the
 * spawn to its listening line, beside bare Node's own start (the floor) measured in turn.
 */
export async function benchStartup(input: StartupBenchInput, log: Log): Promise<Metric[]> {
  const runs = input.runs ?? 15;
  const server = await timeStarts(input.serverArgs, { ...input.env, DOORLIST_PORT: '0' }, runs);
  const floor = await timeStarts(BARE_NODE, {}, runs);
  const median = percentile(server.wall, 50);
  const floorMedian = percentile(floor.wall, 50);
  log(`  ${runs} starts: ${round(server.wall[0], 0)}-${round(server.wall[runs - 1], 0)} ms to the listening line, median ${round(median, 0)} ms (bare Node ${round(floorMedian, 0)} ms)`);
  return [
    {
      section: 'start-up',
      name: `start to listening line (median of ${runs})`,
      value: round(median, 0),
      unit: 'ms',
      target: `≤ ${STARTUP_TARGETS.listeningMs}`,
      ok: median <= STARTUP_TARGETS.listeningMs,
    },
    { section: 'start-up', name: 'start to listening line, fastest', value: round(server.wall[0], 0), unit: 'ms' },
    { section: 'start-up', name: 'start-up CPU to the listening line (median)', value: round(percentile(server.cpu, 50), 0), unit: 'ms' },
    { section: 'start-up', name: 'bare Node start to its first line (median, the floor)', value: round(floorMedian, 0), unit: 'ms' },
  ];
}
