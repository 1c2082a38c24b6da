// The runnable build: `node dist/server.mjs` makes a key pair on first start, prints it, and keeps it with the data.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bannerFlowYaml } from '../support/service.js';

// Each test starts the built service as a process, some on a new embedded data directory: seconds each on a busy 2-core machine.
vi.setConfig({ testTimeout: 90_000 });

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'onboarding-cli-'));
  writeFileSync(join(dir, 'banner.yaml'), bannerFlowYaml('welcome'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function runUntilListening(args: string[], env: NodeJS.ProcessEnv = {}) {
  const { ONBOARDING_PUBLIC_KEYS: _p, ONBOARDING_PRIVATE_KEYS: _s, ...base } = process.env;
  const child: ChildProcess = spawn(process.execPath, ['dist/server.mjs', ...args], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    child.stdout!.on('data', () => {
      if (/public key:.*\n.*private key/s.test(output) || (/listening on/.test(output) && env.ONBOARDING_PUBLIC_KEYS)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}:\n${output}`)));
  });
  const stop = (signal: NodeJS.Signals = 'SIGTERM') =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  return { output, url: /listening on (\S+)/.exec(output)![1]!, stop };
}

describe('npm run server', () => {
  it('makes a key pair on first start, prints it, and reuses it on the same data directory', async () => {
    const args = ['--port', '0', '--flows', dir, '--database', join(dir, 'data')];
    const first = await runUntilListening(args);
    const publicKey = /public key:\s+(pk_\S+)/.exec(first.output)![1]!;
    const privateKey = /private key:\s+(sk_\S+)/.exec(first.output)![1]!;
    const response = await fetch(`${first.url}/v1/public/flows`, { headers: { Authorization: `Bearer ${publicKey}` } });
    expect(response.status).toBe(200);
    await first.stop();

    const second = await runUntilListening(args);
    expect(second.output).toContain(publicKey);
    expect(second.output).toContain(privateKey);
    await second.stop();
  });

  it('takes keys from ONBOARDING_PUBLIC_KEYS and ONBOARDING_PRIVATE_KEYS', async () => {
    const run = await runUntilListening(['--port', '0', '--flows', dir, '--database', 'memory'], {
      ONBOARDING_PUBLIC_KEYS: 'pk_one,pk_two',
      ONBOARDING_PRIVATE_KEYS: 'sk_one',
    });
    for (const key of ['pk_one', 'pk_two', 'sk_one']) {
      const response = await fetch(`${run.url}/v1/public/flows`, { headers: { Authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
    }
    expect(run.output).not.toContain('public key:');
    await run.stop();
  });
});

describe('npm run server on an embedded data directory', () => {
  it('refuses to start a second service on a data directory in use, and takes over the lock of a killed one', async () => {
    const args = ['--port', '0', '--flows', dir, '--database', join(dir, 'locked')];
    const env = { ONBOARDING_PUBLIC_KEYS: 'pk_lock' };
    const first = await runUntilListening(args, env);
    const second = await runUntilListening(args, env).then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(second).toMatch(/server exited 1/);
    expect(second).toMatch(/data directory .*locked is in use by another onboarding service \(process \d+/);
    // The first one still answers, and its writes stay.
    const write = await fetch(`${first.url}/v1/public/users`, {
      method: 'POST',
      headers: { Authorization: 'Bearer pk_lock', 'Content-Type': 'application/json' },
      body: JSON.stringify({ userId: 'kept-by-the-first' }),
    });
    expect(write.status).toBe(201);
    // A crash leaves the lock file behind; the next start sees that its process is gone and takes it over.
    await first.stop('SIGKILL');
    const third = await runUntilListening(args, env);
    const read = await fetch(`${third.url}/v1/public/flowStates?userId=kept-by-the-first`, { headers: { Authorization: 'Bearer pk_lock' } });
    expect(read.status).toBe(200);
    await third.stop();
  });
});

describe('npm run server limits', () => {
  it('takes limits from flags and environment variables, and refuses a bad value with the usage', async () => {
    const run = await runUntilListening(['--port', '0', '--flows', dir, '--database', 'memory', '--max-body-bytes', '300'], {
      ONBOARDING_PUBLIC_KEYS: 'pk_env',
      ONBOARDING_RATE_LIMIT: '3',
    });
    const post = (size: number) =>
      fetch(`${run.url}/v1/public/users`, {
        method: 'POST',
        headers: { Authorization: 'Bearer pk_env', 'Content-Type': 'application/json' },
        body: JSON.stringify({ userId: 'u', properties: { pad: 'x'.repeat(size) } }),
      });
    expect((await post(400)).status).toBe(413);
    expect((await post(10)).status).toBe(201);
    expect((await post(10)).status).toBe(201);
    expect((await post(10)).status).toBe(429);
    await run.stop();

    const refused = spawn(process.execPath, ['dist/server.mjs', '--max-events', 'many'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    refused.stderr!.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => refused.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--max-events must be a whole number');
    expect(stderr).toContain('ONBOARDING_MAX_EVENTS');
  });
});
