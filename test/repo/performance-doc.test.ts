// docs/performance.md is what bench/performance-doc.mjs writes from bench/results.json, so no figure in it is typed by hand.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
// The generator is plain JavaScript run by node; its one export is typed here.
const generator = new URL('../../bench/performance-doc.mjs', import.meta.url).href;
const { performanceDoc } = (await import(generator)) as { performanceDoc: (results: unknown) => string };

describe('docs/performance.md', () => {
  it('is the page the bench writes from bench/results.json', () => {
    const written = performanceDoc(JSON.parse(read('bench/results.json')));
    // On a difference: run `node bench/performance-doc.mjs` (npm run bench does it after every run).
    expect(read('docs/performance.md')).toBe(written);
  });

  it('leaves out a bench that has no figures and keeps the others', () => {
    const results = JSON.parse(read('bench/results.json'));
    delete results.service;
    const page = performanceDoc(results);
    expect(page).not.toContain('## The service');
    expect(page).toContain("## The script's bytes");
  });

  it('offers the A/A run (`--same`) only for the benches that take it', () => {
    const page = performanceDoc(JSON.parse(read('bench/results.json')));
    const section = (title: string) => {
      const start = page.indexOf(title);
      expect(start).toBeGreaterThan(-1);
      return page.slice(start, page.indexOf('\n## ', start + 1));
    };
    // The collections bench compares two data sets and refuses `--same`; the experiments and limits benches take it.
    expect(section('## Reads with collections')).not.toContain('--same');
    expect(section('## Reads with running experiments')).toContain('--same');
  });

  it('writes the figures it is given', () => {
    const results = JSON.parse(read('bench/results.json'));
    results['round-trips'].newGuest.timeToFirstFlowMs.median = 12345.6;
    expect(performanceDoc(results)).toContain('12,345.6 /');
  });
});
