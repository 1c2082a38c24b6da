// A throwaway PostgreSQL cluster from Debian's `postgresql` package: initdb into a temporary directory, pg_ctl on a loopback port.
// Used by the test setup and the benchmarks; nothing here touches a system cluster.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The newest /usr/lib/postgresql/<version>/bin holding initdb, or undefined. */
export function findPostgresBin() {
  if (process.env.PG_BIN) return existsSync(join(process.env.PG_BIN, 'initdb')) ? process.env.PG_BIN : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : undefined;
}

/** A free loopback port, chosen by the OS. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Settings for tests that trade durability for speed; benchmarks keep PostgreSQL's durable defaults. */
export const FAST_UNSAFE_SETTINGS = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

/**
 * Starts a cluster and resolves to `{ url, port, dir, halt(), restart(), stop() }`. As root, the server
 * runs as the `postgres` user (PostgreSQL refuses to run as root). `settings` are server options.
 */
export async function startPostgresCluster({ bin = findPostgresBin(), port, settings = {} } = {}) {
  if (!bin) {
    throw new Error(
      'PostgreSQL server binaries were not found under /usr/lib/postgresql (install the Debian package: apt-get install -y postgresql), or set PG_BIN.',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'onboarding-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  // As root, the postgres user must be able to reach the directory.
  chmodSync(dir, 0o777);
  const run = (command, args, options = {}) => {
    const full = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]]
      : [join(bin, command), args];
    return execFileSync(full[0], full[1], { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  };
  try {
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${error.stderr?.toString() ?? error.message}`, { cause: error });
  }
  const chosenPort = port ?? (await freePort());
  const options = {
    listen_addresses: '127.0.0.1',
    port: String(chosenPort),
    unix_socket_directories: dir,
    max_connections: '200',
    ...settings,
  };
  const serverOptions = Object.entries(options)
    .map(([key, value]) => `-c ${key}=${value}`)
    .join(' ');
  try {
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', serverOptions, '-w', '-t', '60', 'start']);
  } catch (error) {
    const log = existsSync(join(dir, 'server.log'))
      ? spawnSync('cat', [join(dir, 'server.log')]).stdout.toString()
      : '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`pg_ctl start failed: ${error.stderr?.toString() ?? error.message}\n${log}`, { cause: error });
  }
  const url = `postgres://postgres@127.0.0.1:${chosenPort}/postgres`;
  return {
    url,
    port: chosenPort,
    dir,
    /** pg_ctl stop in mode `fast` (or `immediate`, as a crash would), keeping the data directory. */
    halt(mode = 'fast') {
      try {
        run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
      } catch {
        // Already stopped.
      }
    },
    /** Starts the same cluster again on the same port (after `halt`). */
    restart() {
      run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', serverOptions, '-w', '-t', '60', 'start']);
    },
    stop() {
      this.halt('fast');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
