// Opens the store: PostgreSQL SQL over embedded PGlite (memory or a data directory) or a real server via `pg`.
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import { lockDataDirectory } from './data-lock.js';
import { Maintenance } from './maintenance.js';
import { PreparedStatements } from './pglite-statements.js';
import { SnapshotCache } from './snapshot-cache.js';
import { TurnQueue } from './turn-queue.js';
import { migrate } from './schema.js';
import { asOneStatement, type Database, type Queryable } from './store.js';

export interface DatabaseOptions {
  /** Users whose rows are kept in memory for reads (0: none). @default 10000 */
  cacheUsers?: number;
  /** Memory for the state answers kept with cached users, estimated, in bytes (0: none). @default 64 MiB */
  cacheAnswerBytes?: number;
  /** Connections to a PostgreSQL server. @default 10 */
  poolSize?: number;
  /** Brings the schema up to this version only, not the newest (a test of a migration starts from the one before). */
  schemaUpTo?: number;
  /**
   * The embedded store in a data directory: each commit's WAL reaches the disk (fsync) before the write is answered,
   * so an acknowledged write survives an operating-system crash or a power cut, not only the process's end. @default true
   */
  fsync?: boolean;
  /** The embedded store: how often its tables are looked at for an ANALYZE or a VACUUM, in ms (see maintenance.ts); 0 only when asked. @default 10000 */
  maintenanceIntervalMs?: number;
  /**
   * The embedded store: how old its last checkpoint may grow while WAL is written before a maintenance pass makes
   * one, in ms (PostgreSQL's `checkpoint_timeout`; see maintenance.ts). @default 300000
   */
  checkpointTimeoutMs?: number;
}

/** Opens `memory`, a directory path, or a `postgres://` URL, and brings the schema up to date. */
export async function openDatabase(location: string, options: DatabaseOptions = {}): Promise<Database> {
  // Other instances write to a PostgreSQL server's rows, so there entries are checked against their row's version before use.
  const versioned = location.startsWith('postgres://') || location.startsWith('postgresql://');
  const cache = () => new SnapshotCache(options.cacheUsers ?? 10_000, versioned, options.cacheAnswerBytes);
  const db =
    location.startsWith('postgres://') || location.startsWith('postgresql://')
      ? openPostgres(location, options.poolSize ?? 10, cache())
      : await openPglite(location, cache(), options);
  try {
    await migrate(db, options.schemaUpTo);
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  return db;
}

/**
 * PGlite's own start parameters less `-F` (which turns `fsync` off), with WAL flushed by `fsync`: Emscripten's
 * `fdatasync` does nothing, while its `fsync` reaches the file system's stream operation, which `syncToDisk` supplies.
 */
const DURABLE_START = [
  ...PGlite.defaultStartParams.filter((param) => param !== '-F'),
  '-c',
  'fsync=on',
  '-c',
  'wal_sync_method=fsync',
];

/**
 * Makes the `fsync` PostgreSQL calls inside PGlite reach the disk: Emscripten's Node file system has no such
 * operation, so every sync was silently skipped. Returns the count of files synced so far.
 */
function syncToDisk(lite: PGlite): () => number {
  let synced = 0;
  const nodefs = (lite as unknown as { Module: { NODEFS: NodeFs } }).Module.NODEFS;
  nodefs.stream_ops.fsync = (stream) => {
    if (typeof stream.nfd === 'number') {
      fsyncSync(stream.nfd);
    } else {
      // A directory PostgreSQL syncs after creating or renaming a file in it (Emscripten opens no descriptor for one).
      const fd = openSync(nodefs.realPath(stream.node), 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    synced++;
    return 0;
  };
  return () => synced;
}

/** The part of Emscripten's Node file system `syncToDisk` reaches into. */
interface NodeFs {
  stream_ops: { fsync?: (stream: { nfd?: number; node: unknown }) => number };
  realPath(node: unknown): string;
}

async function openPglite(
  location: string,
  cache: SnapshotCache,
  { fsync = true, maintenanceIntervalMs, checkpointTimeoutMs }: DatabaseOptions,
): Promise<Database> {
  const inMemory = location === 'memory' || location === ':memory:';
  if (!inMemory) mkdirSync(location, { recursive: true });
  const lock = inMemory ? undefined : lockDataDirectory(location);
  let lite: PGlite;
  const durable = fsync && !inMemory;
  let fsyncs = () => 0;
  try {
    // PostgreSQL's 128 MB of shared buffers is sized for a server of its own; a quarter serves one embedded process
    // well (the operating system caches the data directory too) and leaves the host its memory. ANALYZE, run in
    // the service's own turns here (see maintenance.ts), samples 3,000 rows a table instead of 30,000: up to 18 ms
    // with the event loop held on the bench's data, not 20–50, and enough for the planner to choose between a scan
    // and an index. A page read at random costs about what one read in order does (the data directory is local and
    // cached), so random_page_cost is 1.1, as for SSDs: with PostgreSQL's 4, a user's few rows (their flow states, a
    // group) were read by a bitmap or sequential scan, whose start asks the file system for the table's size (an
    // fstat through PGlite's file layer, about 6 µs each): on the collections bench's data, 2.6 of them a read.
    lite = await PGlite.create(inMemory ? undefined : location, {
      postgresqlconf: ['shared_buffers=32MB', 'default_statistics_target=10', 'random_page_cost=1.1'],
      ...(durable ? { startParams: DURABLE_START } : {}),
    });
    if (durable) fsyncs = syncToDisk(lite);
  } catch (error) {
    lock?.release();
    throw error;
  }
  const turns = new TurnQueue();
  const statements = new PreparedStatements(lite);
  const maintenance = new Maintenance(
    <Row>(sql: string) => turns.run(async () => ((await lite.exec(sql)).at(-1)?.rows ?? []) as Row[]),
    checkpointTimeoutMs,
  );
  maintenance.start(maintenanceIntervalMs);
  // Statements with parameters are the ones run per request: prepared once. The rest (the schema's) run as they are.
  const run = async <Row>(sql: string, params?: unknown[]): Promise<Row[]> =>
    params && params.length > 0 ? statements.query<Row>(sql, params) : (await lite.query<Row>(sql)).rows;
  // Outside a transaction each statement takes its own turn; inside one, the transaction holds its turn.
  const wrap = (touched?: { users: Set<string>; groups: Set<string> }): Queryable => ({
    query: <Row>(sql: string, params?: unknown[]) =>
      touched ? run<Row>(sql, params) : turns.run(() => run<Row>(sql, params)),
    cache,
    exclusive: true,
    inTransaction: touched !== undefined,
    touchUser(userId) {
      cache.dropUser(userId);
      touched?.users.add(userId);
    },
    touchGroup(groupId) {
      cache.dropGroup(groupId);
      touched?.groups.add(groupId);
    },
  });
  let closing: Promise<void> | undefined;
  return {
    kind: inMemory ? 'memory' : 'pglite',
    fsyncs: () => fsyncs(),
    expectedWaitMs: (requestsAhead = 0) => turns.expectedWaitMs(requestsAhead),
    oldestWaitMs: () => turns.oldestWaitMs(),
    get jobs() {
      return turns.queued;
    },
    maintain: () => maintenance.pass(),
    ...wrap(),
    async transaction(work) {
      // Dropped once when touched and once more at the end: a read that loaded while this ran cannot keep old rows.
      const touched = { users: new Set<string>(), groups: new Set<string>() };
      try {
        return await turns.run(async () => {
          await statements.command('BEGIN');
          try {
            const result = await work(wrap(touched));
            // COMMIT answers ROLLBACK when a statement failed and the work went on regardless.
            if ((await statements.command('COMMIT')) === 'ROLLBACK')
              throw new Error('The transaction was rolled back: one of its statements failed.');
            return result;
          } catch (error) {
            await statements.command('ROLLBACK').catch(() => {});
            throw error;
          }
        });
      } finally {
        for (const userId of touched.users) cache.dropUser(userId);
        for (const groupId of touched.groups) cache.dropGroup(groupId);
      }
    },
    close() {
      closing ??= (async () => {
        try {
          await maintenance.stop();
          await turns.run(() => lite.close());
        } finally {
          lock?.release();
        }
      })();
      return closing;
    },
  };
}

/** How many SQL texts get a name on PostgreSQL, so each connection parses and plans them once; any more run unnamed. */
const MAX_NAMED_STATEMENTS = 200;

/**
 * A query for `pg`: one with parameters is named after its SQL text, which makes `pg` prepare it once per
 * connection and then only bind and execute it (the names are the same on every connection).
 */
function namedStatements(): (text: string, values?: unknown[]) => pg.QueryConfig {
  const names = new Map<string, string>();
  return (text, values) => {
    if (!values?.length) return { text, values };
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMED_STATEMENTS) names.set(text, (name = `s${names.size + 1}`));
    return { name, text, values };
  };
}

/** PostgreSQL errors after which a transaction may simply run again: a deadlock, or a serialization failure. */
const RETRYABLE_CODES = new Set(['40P01', '40001']);

/** Moves the state version of users and groups on, for rows a transaction touched but did not lock with a new version. */
const MOVE_VERSIONS_SQL = asOneStatement([
  "UPDATE users SET state_version = nextval('state_versions') WHERE id = ANY($1::text[])",
  "UPDATE groups SET state_version = nextval('state_versions') WHERE id = ANY($2::text[])",
]);

/** The start of the `application_name` each instance gives its connections, by which instances count each other. */
const INSTANCE_NAME_PREFIX = 'onboarding:';

/** Distinct instance names among this database's connections, and whether this instance's own is one of them. */
const LIVE_INSTANCES_SQL = `SELECT count(DISTINCT application_name)::int AS instances, coalesce(bool_or(application_name = $1), false) AS seen
  FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE '${INSTANCE_NAME_PREFIX}%'`;

function openPostgres(url: string, poolSize: number, cache: SnapshotCache): Database {
  // Every connection carries this instance's name from its start-up message on. It goes in the URL, which would
  // otherwise win over the pool's own option; an application_name the URL had is replaced.
  const instanceName = `${INSTANCE_NAME_PREFIX}${randomBytes(6).toString('hex')}`;
  const named = new URL(url);
  named.searchParams.set('application_name', instanceName);
  const pool = new pg.Pool({ connectionString: named.href, max: poolSize });
  const statement = namedStatements();
  // An idle client's network error must not crash the process; the next query reports it.
  pool.on('error', () => {});
  let ending: Promise<void> | undefined;
  // How long work holds a connection, on average: with the number waiting, what a new request would wait.
  let holdMs = 5;
  let jobs = 0;
  const held = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    jobs++;
    const client = await pool.connect();
    // The pool listens for a connection's errors only while it is idle. When PostgreSQL ends a connection that work
    // holds (a restart, a failover, pg_terminate_backend), that work's query fails; the error must not also reach the
    // process as an uncaught one, and the connection goes back to be dropped, not reused.
    let broken: Error | undefined;
    const onError = (error: Error) => (broken ??= error);
    client.on('error', onError);
    const started = performance.now();
    try {
      return await work(client);
    } finally {
      holdMs = 0.9 * holdMs + 0.1 * (performance.now() - started);
      client.removeListener('error', onError);
      client.release(broken);
    }
  };
  return {
    kind: 'postgres',
    get jobs() {
      return jobs;
    },
    expectedWaitMs(requestsAhead = 0) {
      // Everything waiting for a connection goes before a new request, poolSize at a time; requests on their way
      // take the connections that are free first.
      const free = pool.idleCount + (poolSize - pool.totalCount);
      return (Math.max(0, pool.waitingCount + requestsAhead - free) / poolSize) * holdMs;
    },
    query: <Row>(sql: string, params?: unknown[]) =>
      held(async (client) => (await client.query(statement(sql, params))).rows as Row[]),
    // Not counted as a request's work (`jobs`): it runs on a timer, for the rate limits.
    async liveInstances() {
      const [row] = (
        await pool.query<{ instances: number; seen: boolean }>(statement(LIVE_INSTANCES_SQL, [instanceName]))
      ).rows;
      return row?.seen ? row.instances : undefined;
    },
    ...(cache.enabled ? { cache } : {}),
    async transaction(work) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await held(async (client) => {
            // Rows whose state version must still move on before the commit, and those a statement moved already.
            const touched = { user: new Set<string>(), group: new Set<string>() };
            const moved = { user: new Set<string>(), group: new Set<string>() };
            const touch = (kind: 'user' | 'group', id: string) => {
              if (kind === 'user') cache.dropUser(id);
              else cache.dropGroup(id);
              if (!moved[kind].has(id)) touched[kind].add(id);
            };
            try {
              await client.query('BEGIN');
              const result = await work({
                async query<Row>(sql: string, params?: unknown[]) {
                  return (await client.query(statement(sql, params))).rows as Row[];
                },
                touchUser: (userId) => touch('user', userId),
                touchGroup: (groupId) => touch('group', groupId),
                versionMoved(kind, id) {
                  moved[kind].add(id);
                  touched[kind].delete(id);
                },
              });
              if (touched.user.size > 0 || touched.group.size > 0) {
                await client.query(statement(MOVE_VERSIONS_SQL, [[...touched.user], [...touched.group]]));
              }
              await client.query('COMMIT');
              return result;
            } catch (error) {
              await client.query('ROLLBACK').catch(() => {});
              throw error;
            }
          });
        } catch (error) {
          // Two writers that lock the same rows in opposite orders: PostgreSQL aborts one; it runs again.
          if (attempt < 3 && RETRYABLE_CODES.has((error as { code?: string }).code ?? '')) continue;
          throw error;
        }
      }
    },
    close: () => (ending ??= pool.end()),
  };
}
