import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..');

/** One measured figure; `target` and `ok` when the project sets a target for it. */
export interface Metric {
  section: string;
  name: string;
  value: number;
  unit: string;
  target?: string;
  ok?: boolean;
}

export type Log = (line: string) => void;

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = process.hrtime.bigint();
  const value = await fn();
  return [value, Number(process.hrtime.bigint() - started) / 1e6];
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export interface ChildServer {
  process: ChildProcess;
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Peak resident set size since start (VmHWM), in MB. */
  peakRssMb(): number;
  /** Peak resident set size since the last `resetPeakRss`, in MB. */
  sectionPeakRssMb(): number;
  /** Starts a new section peak (the kernel's VmHWM is reset through clear_refs), so one load's peak can be read alone. */
  resetPeakRss(): void;
  /** CPU time the process has used so far (user + system, all threads), in ms. */
  cpuMs(): number;
  /** The same for its main thread alone (JavaScript, HTTP, GC's own pauses): the rest is SQLite's and V8's helper threads. */
  mainThreadCpuMs(): number;
  stop(): Promise<void>;
}

/** The kernel's own peak RSS of a process: no sampling can miss the peak. */
function readVmHwmMb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmHWM:\s+(\d+)\s+kB/.exec(status);
    return match ? Number(match[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** utime + stime of a process (or, with `tid`, of one of its threads) from /proc, in ms (clock ticks of 10 ms). */
export function readCpuMs(pid: number, tid?: number): number {
  try {
    const stat = fs.readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** CPU time every process on the machine has used so far (from /proc/stat), in ms. */
export function machineCpuMs(): number {
  const [, ...ticks] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
  return (user + nice + system + irq + softirq + steal) * 10;
}

/** Spawns a server process and resolves once it prints the line matching `ready` (group 1: URL). */
export function spawnServer(args: string[], env: Record<string, string>, ready: RegExp): Promise<ChildServer> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let peak = 0;
  let sectionPeak = 0;
  const sample = () => {
    const v = readVmHwmMb(child.pid as number);
    if (!Number.isFinite(v)) return;
    peak = Math.max(peak, v);
    sectionPeak = Math.max(sectionPeak, v);
  };
  const poll = setInterval(sample, 250);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const match = ready.exec(out);
      if (match) {
        out = '';
        resolve({
          process: child,
          url: match[1],
          peakRssMb: () => {
            sample();
            return peak;
          },
          sectionPeakRssMb: () => {
            sample();
            return sectionPeak;
          },
          resetPeakRss: () => {
            sample();
            fs.writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
            sectionPeak = 0;
          },
          cpuMs: () => readCpuMs(child.pid as number),
          mainThreadCpuMs: () => readCpuMs(child.pid as number, child.pid as number),
          stop: async () => {
            sample();
            clearInterval(poll);
            if (child.exitCode !== null || child.signalCode !== null) return;
            const gone = new Promise<void>((r) => child.once('exit', () => r()));
            child.kill('SIGTERM');
            await gone;
          },
        });
      }
    });
    child.stderr!.on('data', (chunk) => (err += chunk));
    child.once('exit', (code) => {
      clearInterval(poll);
      reject(new Error(`server exited (${code}) before it was ready: ${err}`));
    });
  });
}
