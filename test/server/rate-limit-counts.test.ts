// The rate limits' counts in one process: windows from a key's first request, a bounded number of keys, and each instance's share.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateLimitCounts } from '../../server/http/rate-limit-store.js';
import type { Database } from '../../server/storage/store.js';

const count = (counts: RateLimitCounts, key: string, max = 1000) =>
  new Promise<{ current: number; ttl: number }>((resolve, reject) =>
    counts.incr(key, 60_000, max, (error, result) => (error ? reject(error) : resolve(result!))),
  );

/** A database that only counts instances, as PostgreSQL would answer `liveInstances`. */
const instancesOnly = (instances: number | undefined) =>
  ({ kind: 'postgres', liveInstances: async () => instances }) as unknown as Database;

afterEach(() => {
  vi.useRealTimers();
});

describe('rate-limit counts', () => {
  it('count a key alone up to its limit, then refuse it until its window ends', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const counts = new RateLimitCounts();
    expect([
      (await count(counts, 'k', 2)).current,
      (await count(counts, 'k', 2)).current,
      (await count(counts, 'k', 2)).current,
    ]).toEqual([1, 2, 3]);
    vi.advanceTimersByTime(59_000);
    expect(await count(counts, 'k', 2)).toEqual({ current: 4, ttl: 1000 });
    vi.advanceTimersByTime(1000);
    expect(await count(counts, 'k', 2)).toEqual({ current: 1, ttl: 60_000 });
  });

  it('forget the oldest windows past their cap, and keep the rest', async () => {
    const counts = new RateLimitCounts({ keys: 2 });
    for (const key of ['a', 'b', 'c']) await count(counts, key);
    expect((await count(counts, 'c')).current).toBe(2);
    // `a` was forgotten for `c`, and now `b` for `a`.
    expect((await count(counts, 'a')).current).toBe(1);
    expect((await count(counts, 'b')).current).toBe(1);
  });

  it('give each of N instances floor(max / 2N) without asking PostgreSQL, and none when N is unknown or counting is exact', async () => {
    const three = new RateLimitCounts({ db: instancesOnly(3) });
    await three.start();
    three.stop();
    expect([three.instances, three.share(1200), three.share(5)]).toEqual([3, 200, 0]);
    const unknown = new RateLimitCounts({ db: instancesOnly(undefined) });
    await unknown.start();
    unknown.stop();
    expect(unknown.share(1200)).toBe(0);
    const exact = new RateLimitCounts({ db: instancesOnly(3), exact: true });
    await exact.start();
    expect(exact.share(1200)).toBe(0);
    expect(new RateLimitCounts().share(1200)).toBe(1200);
  });
});
