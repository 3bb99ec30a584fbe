import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of a test's own, which it may stop and start (a shared cluster may not
 * be): .ci/with-postgres's approach, a temp folder, 127.0.0.1 on a free port, trust auth,
 * started as the postgres user when the test runs as root.
 */
export const PG_BIN: string | undefined = (() => {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((x, y) => Number(x) - Number(y)) : [];
  const bin = process.env.PG_BIN || (versions.length ? path.join(root, versions[versions.length - 1], 'bin') : undefined);
  return bin && fs.existsSync(path.join(bin, 'initdb')) ? bin : undefined;
})();

export interface PostgresCluster {
  /** The `postgres` database as its superuser. */
  url: string;
  /** The folder of its Unix socket: what a process in another network namespace connects through. */
  socketDir: string;
  /** Stops the cluster: `immediate` is a crash (recovery on start), `fast` a clean shutdown. */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  start(): Promise<void>;
  /** Stops the cluster and removes its folder. */
  remove(): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

function asOwner(command: string, args: string[]) {
  return asRoot ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  if (!PG_BIN) throw new Error('no PostgreSQL under /usr/lib/postgresql');
  const bin = PG_BIN;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-pg-own-'));
  if (asRoot) await run('chown', ['postgres:', dir]);
  const data = path.join(dir, 'data');
  const port = await freePort();
  await asOwner(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
  // Synchronous commit stays on: the test counts on an answered commit surviving a crash.
  const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c full_page_writes=off`;
  const start = async () => {
    await asOwner(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'server.log'), '-w', '-o', options, 'start']);
  };
  const stop = async (mode: 'immediate' | 'fast' = 'immediate') => {
    await asOwner(path.join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop']);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    socketDir: dir,
    stop,
    start,
    async remove() {
      await stop().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
