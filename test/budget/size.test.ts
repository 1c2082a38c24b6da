// Size budget: the script a page loads first, and the tour chunk it loads on demand, stay under their gzip budgets in package.json.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain .mjs module without types
import { budgets, measureBundle } from './measure-size.mjs';

const limits = budgets() as Record<string, { gzip: number }>;

describe('bundle size', () => {
  it('has a budget for the script and for its tour chunk', () => {
    expect(Object.keys(limits).sort()).toEqual(['dist/onboarding-tour.js', 'dist/onboarding.js']);
  });

  for (const [file, limit] of Object.entries(limits)) {
    it(`keeps ${file} under ${limit.gzip} bytes gzip`, () => {
      const size = measureBundle(file) as { minified: number; gzip: number; brotli: number };
      expect(size.gzip).toBeGreaterThan(1000);
      expect(size.gzip).toBeLessThanOrEqual(limit.gzip);
    });
  }

  it('leaves the tour and floating-ui out of the script a page loads first, and puts them in the chunk', () => {
    const text = (file: string) => readFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url)), 'utf8');
    // A floating-ui middleware's name, and an option only the tour reads.
    for (const marker of ['name:"flip"', '"targetTimeout"']) {
      expect(text('dist/onboarding.js')).not.toContain(marker);
      expect(text('dist/onboarding-tour.js')).toContain(marker);
    }
  });
});
