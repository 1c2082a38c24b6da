// Size budget: the script tag bundle must stay under the gzip budget in package.json.
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain .mjs module without types
import { budget, measureBundle } from './measure-size.mjs';

describe('bundle size', () => {
  it('keeps dist/onboarding.js under the gzip budget', () => {
    const size = measureBundle() as { minified: number; gzip: number; brotli: number };
    const limit = budget() as { gzip: number };
    expect(size.gzip).toBeGreaterThan(1000);
    expect(size.gzip).toBeLessThanOrEqual(limit.gzip);
  });
});
