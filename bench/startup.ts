import { percentile, round, spawnServer, type Log, type Metric } from './common';

/** Target on the project's 2-core machine, warm (the files in the page cache). */
export const STARTUP_TARGETS = { listeningMs: 300 };

export interface StartupBenchInput {
  /** Node's arguments for the server: `out/main/serve.js` as `npm run serve` runs it. */
  serverArgs: string[];
  /** The server's environment: an existing database, with its administrator already in it. */
  env: Record<string, string>;
  /** Counted starts, after one start that is not counted (it warms the page cache). */
  runs?: number;
}

const READY = /Doorlist listening on (http:\/\/\S+)/;

/**
 * Starts the server again and again on an existing database and times each start from the
 * spawn to its listening line; CPU is the process's own (every thread) at that line.
 */
export async function benchStartup(input: StartupBenchInput, log: Log): Promise<Metric[]> {
  const runs = input.runs ?? 15;
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let n = 0; n <= runs; n++) {
    const started = process.hrtime.bigint();
    const server = await spawnServer(input.serverArgs, { ...input.env, DOORLIST_PORT: '0' }, READY);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const cpuMs = server.cpuMs();
    await server.stop();
    if (n === 0) continue;
    wall.push(ms);
    cpu.push(cpuMs);
  }
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const median = percentile(wall, 50);
  log(`  ${runs} starts: ${round(wall[0], 0)}-${round(wall[wall.length - 1], 0)} ms to the listening line, median ${round(median, 0)} ms`);
  return [
    {
      section: 'start-up',
      name: `start to listening line (median of ${runs})`,
      value: round(median, 0),
      unit: 'ms',
      target: `≤ ${STARTUP_TARGETS.listeningMs}`,
      ok: median <= STARTUP_TARGETS.listeningMs,
    },
    { section: 'start-up', name: 'start to listening line, fastest', value: round(wall[0], 0), unit: 'ms' },
    { section: 'start-up', name: 'start-up CPU to the listening line (median)', value: round(percentile(cpu, 50), 0), unit: 'ms' },
  ];
}
