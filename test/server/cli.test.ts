// The runnable build: `node dist/server.mjs` makes a key pair on first start, prints it, and keeps it with the data.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get as httpGet } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bannerFlowYaml } from '../support/service.js';
import { startWebhookReceiver, verifySignature } from '../support/webhook-receiver.js';

// Each test starts the built service as a process, some on a new embedded data directory: seconds each on a busy 2-core machine.
vi.setConfig({ testTimeout: 90_000 });

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'onboarding-cli-'));
  writeFileSync(join(dir, 'banner.yaml'), bannerFlowYaml('welcome'));
});
// Every process a test starts is stopped at the end, even when a test failed before it could stop it.
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function runUntilListening(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string) {
  const { ONBOARDING_PUBLIC_KEYS: _p, ONBOARDING_PRIVATE_KEYS: _s, ...base } = process.env;
  const child: ChildProcess = spawn(
    process.execPath,
    [fileURLToPath(new URL('../../dist/server.mjs', import.meta.url)), ...args],
    {
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(cwd ? { cwd } : {}),
    },
  );
  children.add(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${output}`));
    }, 60_000);
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
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { output: () => output, initial: output, url: /listening on (\S+)/.exec(output)![1], stop, child, exited };
}

describe('npm run server', () => {
  it('makes a key pair on first start, prints it, and reuses it on the same data directory', async () => {
    const args = ['--port', '0', '--flows', dir, '--database', join(dir, 'data')];
    const first = await runUntilListening(args);
    const publicKey = /public key:\s+(pk_\S+)/.exec(first.initial)![1];
    const privateKey = /private key:\s+(sk_\S+)/.exec(first.initial)![1];
    const response = await fetch(`${first.url}/v1/public/flows`, { headers: { Authorization: `Bearer ${publicKey}` } });
    expect(response.status).toBe(200);
    await first.stop();

    const second = await runUntilListening(args);
    expect(second.initial).toContain(publicKey);
    expect(second.initial).toContain(privateKey);
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
    expect(run.initial).not.toContain('public key:');
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
    const read = await fetch(`${third.url}/v1/public/flowStates?userId=kept-by-the-first`, {
      headers: { Authorization: 'Bearer pk_lock' },
    });
    expect(read.status).toBe(200);
    await third.stop();
  });
});

describe('npm run server in production', () => {
  it('takes where to listen, the flows and the database from environment variables, and migrates with `migrate`', async () => {
    const data = join(dir, 'env-data');
    const migrate = spawn(process.execPath, ['dist/server.mjs', 'migrate'], {
      env: { ...process.env, ONBOARDING_DATABASE: data },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    migrate.stdout.on('data', (chunk) => (printed += chunk));
    expect(await new Promise((resolve) => migrate.on('exit', resolve))).toBe(0);
    expect(printed).toMatch(/schema version \d+/);
    const run = await runUntilListening([], {
      ONBOARDING_PUBLIC_KEYS: 'pk_env',
      ONBOARDING_PORT: '0',
      ONBOARDING_FLOWS: dir,
      ONBOARDING_DATABASE: data,
    });
    expect((await fetch(`${run.url}/readyz`)).status).toBe(200);
    await expect.poll(() => run.output()).toMatch(/integrity="sha384-/);
    expect(run.output()).toContain(`database: ${data}`);
    await run.stop();
  });

  it('finishes the requests in flight on SIGTERM, then exits 0 and takes no new ones', async () => {
    const run = await runUntilListening(['--port', '0', '--flows', dir, '--database', 'memory'], {
      ONBOARDING_PUBLIC_KEYS: 'pk_term',
    });
    const { port } = new URL(run.url);
    const body = JSON.stringify({ userId: 'in-flight', events: [{ event: 'kept' }] });
    // A request whose body is still arriving when the signal comes.
    const answer = new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST /v1/public/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer pk_term\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
        );
        setTimeout(() => {
          run.child.kill('SIGTERM');
          setTimeout(() => socket.write(body.slice(10)), 500);
        }, 200);
      });
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
    });
    expect((await answer).split('\r\n')[0]).toBe('HTTP/1.1 201 Created');
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain('SIGTERM: finishing the requests in flight');
    await expect(fetch(`${run.url}/healthz`)).rejects.toThrow();
  });
});

describe('npm run server limits', () => {
  it('takes limits from flags and environment variables, and refuses a bad value with the usage', async () => {
    const run = await runUntilListening(
      ['--port', '0', '--flows', dir, '--database', 'memory', '--max-body-bytes', '300'],
      {
        ONBOARDING_PUBLIC_KEYS: 'pk_env',
        ONBOARDING_RATE_LIMIT: '3',
      },
    );
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

    const refused = spawn(process.execPath, ['dist/server.mjs', '--max-events', 'many'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    refused.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => refused.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--max-events must be a whole number');
    expect(stderr).toContain('ONBOARDING_MAX_EVENTS');
  });
});

describe('npm run server analytics settings', () => {
  it('turns the dashboard and webhooks on from environment variables, and refuses a webhook without a secret', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const run = await runUntilListening(['--port', '0', '--flows', dir, '--database', 'memory'], {
        ONBOARDING_PUBLIC_KEYS: 'pk_env',
        ONBOARDING_PRIVATE_KEYS: 'sk_env',
        ONBOARDING_DASHBOARD: 'true',
        ONBOARDING_WEBHOOK_URLS: receiver.url,
        ONBOARDING_WEBHOOK_SECRET: 'whsec_cli_0123456789abcdef',
        ONBOARDING_WEBHOOK_EVENTS: 'flow.skipped',
      });
      await expect.poll(() => run.output()).toContain(`dashboard: ${run.url}/dashboard`);
      // Only the origin is printed: a webhook URL may hold a token in its path.
      await expect.poll(() => run.output()).toContain(`webhooks: ${new URL(receiver.url).origin}/… (flow.skipped)`);
      expect(run.output()).not.toContain(receiver.url);
      expect((await fetch(`${run.url}/dashboard`)).status).toBe(200);
      const skip = await fetch(`${run.url}/v1/public/flowStates`, {
        method: 'POST',
        headers: { Authorization: 'Bearer pk_env', 'Content-Type': 'application/json' },
        body: JSON.stringify({ userId: 'u', flowSlug: 'welcome', actionType: 'SKIPPED_FLOW' }),
      });
      expect(skip.status).toBe(201);
      await receiver.waitFor((r) => r.accepted().length >= 1);
      expect(receiver.accepted()[0]).toMatchObject({ type: 'flow.skipped', userId: 'u', flowSlug: 'welcome' });
      expect(
        verifySignature(
          'whsec_cli_0123456789abcdef',
          receiver.deliveries[0].headers['onboarding-signature'] as string,
          receiver.deliveries[0].body,
        ),
      ).toBe(true);
      await run.stop();
    } finally {
      await receiver.close();
    }

    const refused = spawn(process.execPath, ['dist/server.mjs', '--webhook', 'https://hooks.example/x'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    refused.stderr.on('data', (chunk) => (stderr += chunk));
    expect(await new Promise((resolve) => refused.on('exit', resolve))).toBe(2);
    expect(stderr).toContain('needs a secret of at least 16 characters');
  });
});

/** A GET with the `Host` header given (fetch does not let a page choose it; a DNS-rebinding page's browser sends its own name). */
function getWithHost(url: string, host: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { headers: { Host: host } }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, type: String(response.headers['content-type']), body }),
      );
    });
    request.on('error', reject);
  });
}

describe('npm run server --preview', () => {
  it('listens on loopback only, whatever --host says, and answers only requests addressed to it', async () => {
    const server = await runUntilListening(
      ['--port', '0', '--preview', '--preview-port', '0', '--flows', dir, '--database', 'memory'],
      {
        ONBOARDING_HOST: '0.0.0.0',
        ONBOARDING_PUBLIC_KEYS: 'pk_preview_test',
      },
    );
    try {
      await vi.waitFor(() => expect(server.output()).toMatch(/preview: +http:\/\/127\.0\.0\.1:\d+\/preview\//), {
        timeout: 10_000,
      });
      const preview = /preview: +(\S+)/.exec(server.output())![1];
      const { port } = new URL(preview);
      // Its own address, and the loopback names, with its port.
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`])
        expect((await getWithHost(`${preview}flows.json`, host)).status).toBe(200);
      // A page whose own name was made to resolve here reads nothing, not even the page.
      for (const host of [`attacker.example:${port}`, 'attacker.example', `127.0.0.1:${Number(port) + 1}`]) {
        for (const path of ['flows.json', '']) {
          const refused = await getWithHost(`${preview}${path}`, host);
          expect(refused.status, host).toBe(421);
          expect(refused.type).toContain('application/problem+json');
          expect(JSON.parse(refused.body)).toMatchObject({ status: 421, title: 'Misdirected Request' });
          expect(refused.body).not.toContain('banner');
        }
      }
    } finally {
      await server.stop();
    }
  });

  it('says so in its usage, with --preview-host', async () => {
    const help = spawn(process.execPath, ['dist/server.mjs', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    help.stdout.on('data', (chunk) => (out += chunk));
    await new Promise((resolve) => help.once('exit', resolve));
    expect(out).toContain('[--preview-host 127.0.0.1]');
    expect(out).toMatch(/listens on 127\.0\.0\.1 whatever --host\s+says \(--preview-host sets another address\)/);
  });
});
