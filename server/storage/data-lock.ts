// One service per embedded data directory: a lock file that a second process sees and refuses to start over.
import { closeSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

export const LOCK_FILE = 'onboarding.lock';
/** How often a holder touches its lock; a lock untouched for three times this is stale. */
const HEARTBEAT_MS = 5_000;
const STALE_MS = 3 * HEARTBEAT_MS;

interface Holder {
  pid: number;
  host: string;
  startedAt: string;
}

export interface DataLock {
  release(): void;
}

/** Directories this process holds, so a second open in the same process is refused too. */
const held = new Set<string>();

/**
 * Takes the lock of a PGlite data directory, or throws an Error that says who holds it. Two
 * embedded databases on one directory would each acknowledge writes that the other then loses.
 * A lock whose process is gone (same host) or that nobody has touched for 15 s is taken over.
 */
export function lockDataDirectory(dir: string): DataLock {
  const path = join(dir, LOCK_FILE);
  const key = resolve(dir);
  if (held.has(key)) throw inUse(dir, { pid: process.pid, host: hostname(), startedAt: '' });
  const me: Holder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      held.add(key);
      const heartbeat = setInterval(() => {
        try {
          const now = new Date();
          utimesSync(path, now, now);
        } catch {
          // The directory went away; the next write will say so.
        }
      }, HEARTBEAT_MS);
      heartbeat.unref();
      return {
        release() {
          clearInterval(heartbeat);
          held.delete(key);
          try {
            if (readHolder(path)?.pid === me.pid) rmSync(path, { force: true });
          } catch {
            // Already gone.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(path);
      if (holder && !isStale(path, holder)) throw inUse(dir, holder);
      // A crashed holder: take the lock over.
      rmSync(path, { force: true });
    }
  }
  throw inUse(dir, readHolder(path) ?? me);
}

function readHolder(path: string): Holder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Holder;
    return typeof holder?.pid === 'number' && typeof holder.host === 'string' ? holder : undefined;
  } catch {
    return undefined;
  }
}

function isStale(path: string, holder: Holder): boolean {
  if (holder.host === hostname() && holder.pid !== process.pid && !isAlive(holder.pid)) return true;
  try {
    return Date.now() - statSync(path).mtimeMs > STALE_MS;
  } catch {
    return true;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function inUse(dir: string, holder: Holder): Error {
  return new Error(
    `the data directory ${dir} is in use by another onboarding service (process ${holder.pid} on ${holder.host}). ` +
      "Two services on one embedded data directory would lose each other's writes: stop the other one, " +
      'use another --database directory, or use a postgres:// URL for several instances.',
  );
}
