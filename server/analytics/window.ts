// The window of an analytics request: `from`/`to` (ISO 8601, UTC) widened to whole UTC days, and the optional `version` and `locale`.
import { canonicalLocale } from '../flows/translations.js';
import { HttpProblem } from '../shared/problem.js';

const DAY_MS = 86_400_000;
/** The longest window a request may ask for, in days. */
export const MAX_WINDOW_DAYS = 366;
/** The window when `from` is not given, in days. */
export const DEFAULT_WINDOW_DAYS = 30;
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(2100, 0, 1);

export interface AnalyticsWindow {
  /** Midnight UTC of the first day. */
  from: Date;
  /** Midnight UTC after the last day (exclusive). */
  to: Date;
  /** Every day of the window, `YYYY-MM-DD`, oldest first. */
  days: string[];
  version: number | null;
  /** A canonical locale code, `''` for rows with no locale, or null for every locale (see localeMatch). */
  locale: string | null;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** A time from `YYYY-MM-DD` (midnight UTC) or a date-time with `Z` or an offset; a 400 naming `field` otherwise. */
function parseTime(field: string, value: string): number {
  const date = DATE.exec(value);
  const dateTime = DATE_TIME.exec(value);
  const parts = date ?? dateTime;
  if (!parts) {
    throw new HttpProblem(
      400,
      `query field "${field}" must be an ISO 8601 date (2026-03-01) or a time in UTC (2026-03-01T09:30:00Z)`,
      field,
    );
  }
  const [, year, month, day] = parts.map(Number) as [number, number, number, number];
  // Date.parse would roll February 30th over into March; a calendar date that does not exist is refused.
  const calendar = new Date(Date.UTC(year, month - 1, day));
  const ms = date ? calendar.getTime() : Date.parse(value);
  if (
    Number.isNaN(ms) ||
    calendar.getUTCMonth() !== month - 1 ||
    calendar.getUTCDate() !== day ||
    Number(dateTime?.[4] ?? 0) > 23
  ) {
    throw new HttpProblem(400, `query field "${field}" is not a real date or time: "${value.slice(0, 40)}"`, field);
  }
  if (ms < EARLIEST || ms > LATEST)
    throw new HttpProblem(400, `query field "${field}" must be from 2000-01-01 to 2100-01-01`, field);
  return ms;
}

const floorDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
const ceilDay = (ms: number) => Math.ceil(ms / DAY_MS) * DAY_MS;

/**
 * Reads `from`, `to`, `version` and `locale`. Counts are kept per UTC day, so the window is whole days: `from` rounds
 * down to midnight UTC, `to` up to the next midnight. Without `to` the window ends with today; without
 * `from` it holds the 30 days up to `to`.
 */
export function parseWindow(
  query: { from?: string; to?: string; version?: string; locale?: string },
  now = Date.now(),
): AnalyticsWindow {
  const to = ceilDay(query.to === undefined ? now : parseTime('to', query.to));
  const from = floorDay(query.from === undefined ? to - DEFAULT_WINDOW_DAYS * DAY_MS : parseTime('from', query.from));
  if (from >= to) throw new HttpProblem(400, 'query field "from" must be before "to"', 'from');
  const length = (to - from) / DAY_MS;
  if (length > MAX_WINDOW_DAYS) {
    throw new HttpProblem(
      400,
      `the window from "from" to "to" is ${length} days; ask for at most ${MAX_WINDOW_DAYS} at a time`,
      'from',
    );
  }
  let version: number | null = null;
  if (query.version !== undefined) {
    if (!/^\d{1,9}$/.test(query.version) || Number(query.version) < 1) {
      throw new HttpProblem(400, 'query field "version" must be a flow version: a whole number from 1', 'version');
    }
    version = Number(query.version);
  }
  let locale: string | null = null;
  if (query.locale !== undefined) {
    // Unlike a read, which falls back to the source text, a filter that is no locale code would silently count nothing.
    locale = query.locale === '' ? '' : (canonicalLocale(query.locale) ?? null);
    if (locale === null) {
      throw new HttpProblem(
        400,
        `query field "locale" must be a locale code (fr, fr-CA, zh-Hans), or empty for answers with none: "${query.locale.slice(0, 40)}"`,
        'locale',
      );
    }
  }
  const days = Array.from({ length }, (_, i) => new Date(from + i * DAY_MS).toISOString().slice(0, 10));
  return { from: new Date(from), to: new Date(to), days, version, locale };
}

/**
 * The SQL condition that `column` matches the window's locale filter, its code given as parameter `param` (true for
 * none). A code matches itself and every code that extends it: `fr` matches `fr-CA`, `fr-CA` only itself. The code is
 * canonical, so it holds only letters, digits and `-`, none of which LIKE reads as a pattern.
 */
export const localeMatch = (column: string, param: string): string =>
  `(${param}::text IS NULL OR ${column} = ${param} OR (${param} <> '' AND ${column} LIKE ${param} || '-%'))`;

/** The query fields every analytics endpoint takes, as a schema: strings, each at most once, nothing else. */
export const windowQueryProperties = {
  from: { type: 'string', maxLength: 64 },
  to: { type: 'string', maxLength: 64 },
  version: { type: 'string', maxLength: 16 },
  locale: { type: 'string', maxLength: 64 },
} as const;
