// GET /v1/public/flows over loopback HTTP: offset/limit paging (default 100, at most 1000) and ETag / If-None-Match.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowsResponse } from '../../src/api/wire.js';
import { bannerFlowYaml, startTestService, type TestService } from '../support/service.js';

let service: TestService;
const COUNT = 105;
const slugAt = (i: number) => `flow-${String(i).padStart(3, '0')}`;

beforeAll(async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < COUNT; i++) files[`${slugAt(i)}.yaml`] = bannerFlowYaml(slugAt(i));
  service = await startTestService(files);
});
afterAll(() => service?.close());

const list = async (query = '', headers: Record<string, string> = {}) =>
  service.call('GET', `/v1/public/flows${query}`, { headers });

describe('flow paging', () => {
  it('answers the first 100 by default, with limit as the number of records returned', async () => {
    const body = (await list()).body as FlowsResponse;
    expect(body.offset).toBe(0);
    expect(body.limit).toBe(100);
    expect(body.data).toHaveLength(100);
    expect(body.data[0].slug).toBe(slugAt(0));
  });

  it('pages with offset and limit, up to 1000 at a time', async () => {
    const page = (await list('?offset=100&limit=10')).body as FlowsResponse;
    expect(page).toMatchObject({ offset: 100, limit: 5 });
    expect(page.data.map((f) => f.slug)).toEqual([100, 101, 102, 103, 104].map(slugAt));
    const all = (await list('?limit=1000')).body as FlowsResponse;
    expect(all.limit).toBe(COUNT);
    const past = (await list('?offset=500')).body as FlowsResponse;
    expect(past).toEqual({ data: [], offset: 500, limit: 0 });
  });
});

describe('flow ETag', () => {
  it('answers 304 for a matching If-None-Match in any of its forms, and 200 once the flows change', async () => {
    const first = await list('?limit=3');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await list('?limit=3', { 'If-None-Match': header });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
    }
    expect((await list('?limit=4', { 'If-None-Match': etag })).status).toBe(200);
    await service.writeFlow(`${slugAt(0)}.yaml`, bannerFlowYaml(slugAt(0), 'A new title'));
    const changed = await list('?limit=3', { 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect((changed.body as FlowsResponse).data[0].version).toBe(2);
  });
});
