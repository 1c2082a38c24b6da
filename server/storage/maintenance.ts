// Autovacuum for the embedded store: PGlite runs no background workers, so its tables are analysed and vacuumed here, by PostgreSQL's own rules.

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

interface DueRow {
  target: string;
  analyze: boolean;
  vacuum: boolean;
}

/** What one pass did: the tables it analysed and those it vacuumed. */
export interface MaintenanceReport {
  analyzed: string[];
  vacuumed: string[];
}

/**
 * PostgreSQL's server analyses and vacuums its tables in the background; PGlite does neither. Without this, statistics
 * once taken are never taken again, and the dead rows updates leave are never vacuumed. A prepared statement
 * keeps its generic plan until a table it reads is analysed again: planned on statistics taken while a table was empty,
 * it scans that table on every run, however large it grows. On the service bench's data (analysed after seeding,
 * with the analytics tables empty), the read of a user's rows took 0.7 ms at first, 2.9 ms after 30 s of
 * transitions and 0.4 ms after an ANALYZE, and the transitions served a second fell by half within 40 s.
 *
 * `run` runs one statement in its own turn of the store (simple protocol: VACUUM cannot run in a transaction).
 * Each table's work is a turn of its own, so requests wait for at most one table's at a time.
 */
export class Maintenance {
  #timer: ReturnType<typeof setInterval> | undefined;
  #first: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<MaintenanceReport> | undefined;
  #stopped = false;

  constructor(private readonly run: <Row>(sql: string) => Promise<Row[]>) {}

  /** Looks soon after opening, then every `intervalMs` (0: never by itself); the timers never keep the process alive. */
  start(intervalMs = MAINTENANCE_INTERVAL_MS): void {
    if (intervalMs <= 0) return;
    // A pass that fails (the store closing under it, a full disk) is tried again at the next look.
    const look = () => void this.pass().catch(() => {});
    this.#first = setTimeout(look, Math.min(FIRST_LOOK_MS, intervalMs)).unref();
    this.#timer = setInterval(look, intervalMs).unref();
  }

  /** Analyses and vacuums the tables that are due now; a pass already under way is joined, not repeated. */
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
    return report;
  }
}
