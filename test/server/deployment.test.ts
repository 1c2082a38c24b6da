// What a deployment relies on: the script served by the service with its integrity, health checks, and 404 for unknown paths.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScriptBuild } from '../../server/routes/script.js';
import { bannerFlowYaml, startTestService, type TestService } from '../support/service.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ 'banner.yaml': bannerFlowYaml('welcome') });
});
afterAll(() => service?.close());

describe('the script, served by the service', () => {
  it('serves onboarding.js at a stable address cached for good, and at /onboarding.js for five minutes, without a key', async () => {
    const built = readFileSync(new URL('../../dist/onboarding.js', import.meta.url));
    const script = service.script!;
    expect(script.integrity).toBe(`sha384-${createHash('sha384').update(built).digest('base64')}`);
    const versioned = await fetch(`${service.url}/script/${script.build}/onboarding.js`);
    expect(versioned.status).toBe(200);
    expect(versioned.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(versioned.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await versioned.arrayBuffer()).equals(built)).toBe(true);
    const latest = await fetch(`${service.url}/onboarding.js`);
    expect(latest.headers.get('cache-control')).toMatch(/max-age=300/);
    await latest.arrayBuffer();
    const again = await fetch(`${service.url}/onboarding.js`, {
      headers: { 'If-None-Match': latest.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
    const map = await fetch(`${service.url}/onboarding.js.map`);
    expect(map.status).toBe(200);
    expect(JSON.parse(await map.text())).toMatchObject({ version: 3 });
  });

  it('answers 404 with a problem for an old build or a file it does not have', async () => {
    for (const path of [
      '/script/000000000000/onboarding.js',
      `/script/${service.script!.build}/nope.js`,
      '/nope.js',
      '/server.mjs',
    ]) {
      const response = await fetch(service.url + path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(await response.json()).toMatchObject({ status: 404 });
    }
  });
});

describe('the chunks beside the script, served by the service', () => {
  it('serves each chunk under the same build, whose hash changes when only a chunk does', async () => {
    for (const chunk of ['onboarding-form.js', 'onboarding-survey.js', 'onboarding-tour.js']) {
      const response = await fetch(`${service.url}/script/${service.script!.build}/${chunk}`);
      expect(response.status, chunk).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(
        Buffer.from(await response.arrayBuffer()).equals(readFileSync(new URL(`../../dist/${chunk}`, import.meta.url))),
        chunk,
      ).toBe(true);
    }
    // Two folders with the same onboarding.js and another form chunk are two builds.
    const folder = (form: string) => {
      const dir = mkdtempSync(join(tmpdir(), 'onboarding-build-'));
      copyFileSync(new URL('../../dist/onboarding.js', import.meta.url), join(dir, 'onboarding.js'));
      writeFileSync(join(dir, 'onboarding-form.js'), form);
      return dir;
    };
    const [one, two] = [folder('/* one */'), folder('/* two */')];
    try {
      const [a, b] = [loadScriptBuild(one)!, loadScriptBuild(two)!];
      expect(a.integrity).toBe(b.integrity);
      expect(a.build).not.toBe(b.build);
      expect(loadScriptBuild(one)!.build).toBe(a.build);
    } finally {
      for (const dir of [one, two]) rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('health checks', () => {
  it('answer /healthz and /readyz without a key', async () => {
    const health = await fetch(`${service.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', schema: expect.any(Number), flows: 1 });
  });
});

describe('unknown paths', () => {
  it('answer 404 with a problem, with or without a key', async () => {
    for (const headers of [{}, { Authorization: 'Bearer pk_test_public' }, { Authorization: 'Bearer wrong' }] as Array<
      Record<string, string>
    >) {
      const response = await fetch(`${service.url}/v1/public/nothing/here`, { headers });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ status: 404, title: 'Not Found' });
    }
    // A known path still needs its key.
    expect((await fetch(`${service.url}/v1/public/flows`)).status).toBe(401);
  });
});

describe('readiness', () => {
  it('answers /readyz 503 when the database cannot be reached', async () => {
    const lonely = await startTestService({ 'banner.yaml': bannerFlowYaml('welcome') });
    await lonely.db.close();
    const ready = await fetch(`${lonely.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 503, detail: expect.stringContaining('database') });
    expect((await fetch(`${lonely.url}/healthz`)).status).toBe(200);
    // Its database is closed already (closing it again waits for that); the rest goes as usual, its flows folder too.
    await lonely.close();
    expect(existsSync(lonely.flowsDir)).toBe(false);
  });
});
