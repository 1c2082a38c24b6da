// The start rules' page patterns and delays as the script reads them (src/page/start-rules.ts); Chromium runs the rules themselves.
import { describe, expect, it } from 'vitest';
import { durationMs, onPage } from '../../src/page/start-rules.js';

describe('start rules in the script', () => {
  it('opens where a pattern without "!" matches, or on any page when there is none, and never where a "!" one does', () => {
    expect(onPage(undefined, '/anything')).toBe(true);
    expect(onPage('/reports/*', '/reports/q3')).toBe(true);
    expect(onPage('/reports/*', '/reports')).toBe(false);
    expect(onPage('/projects/:id', '/projects/7/')).toBe(true);
    expect(onPage('/projects/:id', '/projects/7/settings')).toBe(false);
    expect(onPage(['/reports/*', '/projects/:id'], '/projects/7')).toBe(true);
    expect(onPage(['/reports/*', '!/reports/archive'], '/reports/archive')).toBe(false);
    expect(onPage(['/reports/*', '!/reports/archive'], '/reports/2026')).toBe(true);
    expect(onPage('!/settings/*', '/home')).toBe(true);
    expect(onPage('!/settings/*', '/settings/profile')).toBe(false);
    expect(onPage(['!/settings/*', '!/billing'], '/billing')).toBe(false);
    expect(onPage([], '/home')).toBe(true);
    // A rule the script cannot read (a cached definition of another build) matches nothing, and throws nothing.
    expect(onPage([1, null, { a: 1 }] as never, '/1')).toBe(false);
    expect(onPage(42 as never, '/42')).toBe(false);
    // Percent-encoded paths are compared decoded.
    expect(onPage('/caf\u00e9/*', '/caf%C3%A9/menu')).toBe(true);
  });

  it('reads delays in ms, s, m, h, d and w, and 0 for anything else', () => {
    expect([durationMs('500ms'), durationMs('3s'), durationMs(' 2m '), durationMs('1h'), durationMs('1d'), durationMs('1w')]).toEqual([500, 3000, 120_000, 3_600_000, 86_400_000, 604_800_000]);
    expect([durationMs(undefined), durationMs('soon'), durationMs('1.5s'), durationMs('-1s')]).toEqual([0, 0, 0, 0]);
  });
});
