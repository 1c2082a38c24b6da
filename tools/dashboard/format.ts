// Numbers, shares, durations and dates as the dashboard shows them.
import type { FlowType } from '../../src/api/wire.js';

const integer = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

export const count = (n: number) => (n >= 100_000 ? compact.format(n) : integer.format(n));

/** A share 0..1 as a percentage; "–" when there is none. */
export const percent = (share: number | null) => (share === null ? '–' : `${Math.round(share * 1000) / 10}%`);

/** An interval of shares as "12.1% to 38.4%". */
export const percentRange = ([lower, upper]: readonly [number, number]) => `${percent(lower)} to ${percent(upper)}`;

/** A difference of two shares in percentage points, signed: "+3.1 pts", "-0.4 pts", "0 pts". */
export const points = (difference: number) => {
  const rounded = Math.round(difference * 1000) / 10;
  return `${rounded > 0 ? '+' : ''}${rounded === 0 ? 0 : rounded} pts`;
};

/** An interval of differences as "-3.2 to +13.1 pts". */
export const pointsRange = ([lower, upper]: readonly [number, number]) =>
  `${points(lower).replace(' pts', '')} to ${points(upper)}`;

/** A p-value to three decimals, "< 0.001" below that; "–" when there is none. */
export const pValue = (p: number | null) => (p === null ? '–' : p < 0.001 ? '< 0.001' : p.toFixed(3));

/** Seconds as the largest unit that reads well: 42 s, 3.5 min, 2.1 h, 4 d. */
export function duration(seconds: number | null): string {
  if (seconds === null) return '–';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 6) / 10} min`;
  if (seconds < 86_400) return `${Math.round(seconds / 360) / 10} h`;
  return `${Math.round(seconds / 8640) / 10} d`;
}

const dayFormat = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const timeFormat = new Intl.DateTimeFormat('en', {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
});

/** `2026-03-01` as "Mar 1" (UTC, as the service counts days). */
export const day = (date: string) => dayFormat.format(new Date(`${date}T00:00:00Z`));
/** An ISO time as "Mar 1, 09:30" UTC. */
export const time = (iso: string) => `${timeFormat.format(new Date(iso))} UTC`;

const languageNames = new Intl.DisplayNames('en', { type: 'language', fallback: 'code' });

/** A locale code as its name ("French (Canada)"); "" is what was recorded with no locale. */
/** A locale's name; "" is the source text, which a run is counted under when the flow had no translation for its locale. */
export const localeName = (code: string) => (code === '' ? 'Source text' : (languageNames.of(code) ?? code));

/** Any JSON value as short text. */
export const value = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

export const TYPE_LABELS: Record<FlowType, string> = {
  ANNOUNCEMENT: 'Announcement',
  BANNER: 'Banner',
  CARD: 'Card',
  CHECKLIST: 'Checklist',
  CUSTOM: 'Custom',
  FORM: 'Form',
  HINT: 'Hint',
  RESOURCE_CENTER: 'Resource centre',
  SURVEY: 'Survey',
  TOOLTIP: 'Tooltip',
  TOUR: 'Tour',
};
