// Autovacuum and the checkpointer for the embedded store: PGlite runs no background workers, so its tables are analysed and vacuumed, and its WAL checkpointed, here, by PostgreSQL's own rules.

/** How often the tables' counters are looked at, in ms (PostgreSQL's autovacuum looks every minute, over many databases). */
export const MAINTENANCE_INTERVAL_MS = 10_000;
/** The first look, soon after the store opens: a data directory may hold tables never analysed. */
const FIRST_LOOK_MS = 1_000;

/** A table this small (pages of 8 kB) is read whole as cheaply as through its visibility map. */
const VISIBILITY_MIN_PAGES = 8;

/**
 * Which tables are due, with PostgreSQL's default thresholds: analysed once the rows changed since the last ANALYZE
 * pass 50 + 10 % of the table, vacuumed once its dead rows pass 50 + 20 %, or the rows inserted since the last
 * VACUUM 1,000 + 20 %. A table with rows that was never analysed (a restored copy, statistics lost with a crash) is
 * due at once.
 *
 * Those counters live in memory and start from zero each time the store opens: rows loaded or left dead before
 * then count for nothing. So a table is also vacuumed when its visibility map, which the catalog records, marks
 * under half of its pages all-visible. A bulk load leaves none marked, and until a VACUUM marks them an index-only
 * scan reads the table too: on the collections bench's data, each count of a user's events over time visited the
 * table's pages, one per event. `target` is the table's name, quoted for a statement.
 */
const DUE_SQL = `
SELECT format('%I.%I', s.schemaname, s.relname) AS target,
       (s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)
        OR (s.last_analyze IS NULL AND s.last_autoanalyze IS NULL AND pg_relation_size(s.relid) > 0)) AS analyze,
       (s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
        OR s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0)
        OR (c.relpages >= ${VISIBILITY_MIN_PAGES} AND c.relallvisible < 0.5 * c.relpages)) AS vacuum
FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
ORDER BY s.relname`;

/**
 * PostgreSQL's `checkpoint_timeout`: how old the last checkpoint may grow while WAL is written, in ms. PGlite has no
 * checkpointer, so without a pass that makes one, a store checkpointed only when it closed or when its WAL passed
 * `max_wal_size` (1 GB): every write since then was replayed from the WAL when it opened after a crash, and that WAL
 * stayed on disk (in memory for a store in memory). On the service bench's data, transitions at 16 connections write
 * about 0.8 to 1.4 MB of WAL a second; 60 s of them took 0.6 s to replay at the next start.
 */
export const CHECKPOINT_TIMEOUT_MS = 300_000;

/** The WAL's insert position, and the age of the last checkpoint in ms (its time is kept to the second). */
const CHECKPOINT_DUE_SQL = `
SELECT pg_current_wal_insert_lsn()::text AS lsn,
       (extract(epoch FROM clock_timestamp() - checkpoint_time) * 1000)::float8 AS age_ms
FROM pg_control_checkpoint()`;

interface DueRow {
  target: string;
  analyze: boolean;
  vacuum: boolean;
}

/** What one pass did: the tables it analysed and those it vacuumed, and whether it made a checkpoint. */
export interface MaintenanceReport {
  analyzed: string[];
  vacuumed: string[];
  /** Set only when the pass made a checkpoint. */
  checkpointed?: true;
}

/**
 * PostgreSQL's server analyses and vacuums its tables in the background; PGlite does neither. Without this, statistics
 * once taken are never taken again, and the dead rows updates leave are never vacuumed. A prepared statement
 * keeps its generic plan until a table it reads is analysed again: planned on statistics taken while a table was empty,
 * it scans that table on every run, however large it grows. On the service bench's data (analysed after seeding,
 * with the analytics tables empty), the read of a user's rows took 0.7 ms at first, 2.9 ms after 30 s of
 * transitions and 0.4 ms after an ANALYZE, and the transitions served a second fell by half within 40 s.
 *
 * A pass also makes a checkpoint, as PostgreSQL's checkpointer does on time: once the last one is
 * `checkpointTimeoutMs` old, if WAL was written since. It holds the store for its turn: about 50 to 90 ms after
 * 10 to 150 s of the service bench's transitions, 3 ms with nothing to write.
 *
 * `run` runs SQL in its own turn of the store (simple protocol: VACUUM cannot run in a transaction), and answers the
 * last statement's rows. Each table's work is a turn of its own, so requests wait for at most one table's at a time.
 */
export class Maintenance {
  #timer: ReturnType<typeof setInterval> | undefined;
  #first: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<MaintenanceReport> | undefined;
  #stopped = false;
  /** The WAL's insert position just after this pass's last checkpoint: still there, nothing was written since. */
  #checkpointedAt: string | undefined;

  constructor(
    private readonly run: <Row>(sql: string) => Promise<Row[]>,
    private readonly checkpointTimeoutMs = CHECKPOINT_TIMEOUT_MS,
  ) {}

  /** Looks soon after opening, then every `intervalMs` (0: never by itself); the timers never keep the process alive. */
  start(intervalMs = MAINTENANCE_INTERVAL_MS): void {
    if (intervalMs <= 0) return;
    // A pass that fails (the store closing under it, a full disk) is tried again at the next look.
    const look = () => void this.pass().catch(() => {});
    this.#first = setTimeout(look, Math.min(FIRST_LOOK_MS, intervalMs)).unref();
    this.#timer = setInterval(look, intervalMs).unref();
  }

  /** Analyses and vacuums the tables that are due now, then checkpoints if due; a pass already under way is joined, not repeated. */
  pass(): Promise<MaintenanceReport> {
    this.#running ??= this.#pass().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /** No pass starts after this, and the one under way stops before its next table; resolves when it has. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#first);
    clearInterval(this.#timer);
    await this.#running?.catch(() => {});
  }

  async #pass(): Promise<MaintenanceReport> {
    const report: MaintenanceReport = { analyzed: [], vacuumed: [] };
    if (this.#stopped) return report;
    for (const { target, analyze, vacuum } of await this.run<DueRow>(DUE_SQL)) {
      if (this.#stopped) break;
      if (!analyze && !vacuum) continue;
      await this.run(`${vacuum ? `VACUUM${analyze ? ' (ANALYZE)' : ''}` : 'ANALYZE'} ${target}`);
      if (analyze) report.analyzed.push(target);
      if (vacuum) report.vacuumed.push(target);
    }
    if (this.#stopped) return report;
    const [due] = await this.run<{ lsn: string; age_ms: number }>(CHECKPOINT_DUE_SQL);
    if (due && due.age_ms >= this.checkpointTimeoutMs && due.lsn !== this.#checkpointedAt) {
      // In the checkpoint's own turn, so no write lands between it and the position read after it.
      const [after] = await this.run<{ lsn: string }>('CHECKPOINT; SELECT pg_current_wal_insert_lsn()::text AS lsn');
      this.#checkpointedAt = after?.lsn;
      report.checkpointed = true;
    }
    return report;
  }
}
