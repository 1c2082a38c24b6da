// The start rules' page patterns and delays as the script reads them (src/page/start-rules.ts); Chromium runs the rules themselves.
import { describe, expect, it } from 'vitest';
import { durationMs, onPage } from '../../src/page/start-rules.js';
import { pageMatches } from '../../src/page/pages.js';

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

  it('reads ":name" as a parameter only as a whole segment, ":" and "*" elsewhere as text, as the service does', () => {
    expect(pageMatches('/projects/:id/settings', '/projects/7/settings')).toBe(true);
    expect(pageMatches('/x:id', '/x:id')).toBe(true);
    expect(pageMatches('/x:id', '/x7')).toBe(false);
    expect(pageMatches('/wiki/Special:Search', '/wiki/Special:Search')).toBe(true);
    expect(pageMatches('/v:a*', '/v:a/b')).toBe(true);
    expect(pageMatches('/v:a*', '/vb/c')).toBe(false);
    expect(pageMatches('/:id/*', '/7/edit/more')).toBe(true);
    expect(pageMatches('/a*b/*', '/a*b/c')).toBe(true);
    expect(pageMatches('/a*b/*', '/axb/c')).toBe(false);
  });

  it('matches in time linear in the path: under 1 ms for a 10,000-character path', () => {
    /** The median of five matches of `pattern` against `path`, in ms; the first one compiles the pattern. */
    const timed = (pattern: string, path: string) => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const start = performance.now();
        pageMatches(pattern, path);
        times.push(performance.now() - start);
      }
      return times.sort((a, b) => a - b)[2];
    };
    const slow = '/x:a:b:c:d:e:f:g:h:i:j:k';
    // The link first: read as eleven parameters side by side, it took seconds.
    expect(timed(slow, `/x${'a'.repeat(36)}/z`)).toBeLessThan(1);
    expect(timed(slow, `/x${'a'.repeat(9996)}/z`)).toBeLessThan(1);
    // A long run of "/" at the end, which the trailing-"/" trim backtracked over.
    expect(timed('/a/*', `/a${'/'.repeat(9997)}b`)).toBeLessThan(1);
    expect(timed('/projects/:id/*', `/projects/${'7'.repeat(9980)}/edit`)).toBeLessThan(1);
  });

  it('reads delays in ms, s, m, h, d and w, and 0 for anything else', () => {
    expect([
      durationMs('500ms'),
      durationMs('3s'),
      durationMs(' 2m '),
      durationMs('1h'),
      durationMs('1d'),
      durationMs('1w'),
    ]).toEqual([500, 3000, 120_000, 3_600_000, 86_400_000, 604_800_000]);
    expect([durationMs(undefined), durationMs('soon'), durationMs('1.5s'), durationMs('-1s')]).toEqual([0, 0, 0, 0]);
  });
});
