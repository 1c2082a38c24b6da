// Durations in flow files and collections.yaml: a whole number and a unit, such as 500ms, 30s, 15m, 48h, 2d or 1w.
const DURATION = /^(\d+)(ms|s|m|h|d|w)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A duration in milliseconds: `500ms`, `30s`, `15m`, `48h`, `2d`, `1w`, or 0 (the number or the string); undefined when it is none of these. */
export function parseDuration(value: unknown): number | undefined {
  if (value === 0 || value === '0') return 0;
  if (typeof value !== 'string') return undefined;
  const match = DURATION.exec(value.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2]];
  return Number.isSafeInteger(ms) ? ms : undefined;
}
