// The dashboard's files over loopback: off unless turned on, served without a key under a strict CSP; its data still needs a private key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_CSP } from '../../server/routes/dashboard.js';
import { PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

let off: TestService;
let on: TestService;

// Two services at once: on a loaded machine (a clean-checkout CI run) their start took longer than the usual hook time.
beforeAll(async () => {
  [off, on] = await Promise.all([startTestService({}), startTestService({}, { dashboard: true })]);
}, 90_000);
afterAll(async () => {
  await Promise.all([off?.close(), on?.close()]);
});

describe('/dashboard', () => {
  it('is not served unless turned on', async () => {
    for (const path of ['/dashboard', '/dashboard/dashboard.js']) {
      const response = await off.call('GET', path, { key: null });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  it('serves the page, its script and stylesheet without a key, under a strict Content Security Policy', async () => {
    for (const [path, type] of [
      ['/dashboard', 'text/html; charset=utf-8'],
      ['/dashboard/', 'text/html; charset=utf-8'],
      ['/dashboard/dashboard.js', 'text/javascript; charset=utf-8'],
      ['/dashboard/dashboard.css', 'text/css; charset=utf-8'],
    ] as const) {
      const response = await on.call('GET', path, { key: null });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe(type);
      expect(response.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
    expect(DASHBOARD_CSP).not.toContain('unsafe-inline');
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    const page = await on.call('GET', '/dashboard', { key: null });
    expect(page.text).toContain('<script type="module" src="/dashboard/dashboard.js"></script>');
    // Nothing inline for the CSP to refuse.
    expect(page.text).not.toMatch(/<script>|<style|style="/);
  });

  it('answers a repeated request with 304 and an unknown file with a 404 problem', async () => {
    const first = await on.call('GET', '/dashboard/dashboard.js', { key: null });
    const again = await on.call('GET', '/dashboard/dashboard.js', {
      key: null,
      headers: { 'If-None-Match': first.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
    const missing = await on.call('GET', '/dashboard/secrets.txt', { key: null });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('leaves its data behind the private key', async () => {
    expect((await on.call('GET', '/v1/analytics/flows', { key: null })).status).toBe(401);
    expect((await on.call('GET', '/v1/analytics/flows', { key: PRIVATE_KEY })).status).toBe(200);
  });
});
