// The image builds and serves, proven without a Docker engine: the Dockerfile's stages replayed in scratch folders, then its CMD asked /readyz.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  dockerignore,
  mapPaths,
  parseDockerfile,
  replayDockerfile,
  startCommand,
} from '../support/dockerfile-replay.js';

const context = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/**
 * What every step gets besides the stage's ENV, as a container would have its image's: this machine's node and npm
 * first on PATH, the system folders, and npm's own cache, preferred over the network so the installs take seconds.
 * Nothing else of the test's environment (the project's node_modules/.bin, npm's variables for this checkout) leaks in.
 */
function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {
    PATH: [
      dirname(process.execPath),
      '/usr/local/sbin',
      '/usr/local/bin',
      '/usr/sbin',
      '/usr/bin',
      '/sbin',
      '/bin',
    ].join(':'),
    HOME: process.env.HOME ?? tmpdir(),
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
  };
  for (const key of [
    'npm_config_cache',
    'npm_config_userconfig',
    'npm_config_registry',
    'HTTPS_PROXY',
    'HTTP_PROXY',
    'NO_PROXY',
    'https_proxy',
    'http_proxy',
    'no_proxy',
    'TMPDIR',
    'LANG',
  ]) {
    if (process.env[key]) env[key] = process.env[key]!;
  }
  return env;
}

/** The address the service prints once it listens; rejects with its output when it exits or takes over a minute. */
function listening(child: ChildProcess): Promise<string> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the runtime stage's CMD did not listen within a minute:\n${output}`)),
      60_000,
    );
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (\S+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the runtime stage's CMD exited ${code}:\n${output}`));
    });
  });
}

describe('the Dockerfile', () => {
  it('keeps to what the replay knows, and runs unprivileged on the port it exposes', () => {
    const stages = parseDockerfile(readFileSync(join(context, 'Dockerfile'), 'utf8'));
    const runtime = stages.at(-1)!;
    expect(runtime.name).toBe('runtime');
    const args = (keyword: string) => runtime.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
    expect(args('USER')).toEqual(['node']);
    expect(args('ENV').join(' ')).toContain(`ONBOARDING_PORT=${args('EXPOSE')[0]}`);
    expect(args('CMD')).toEqual(['["node", "dist/server.mjs"]']);
  });

  it('reads .dockerignore as Docker does', () => {
    const ignore = dockerignore('# comment\nnode_modules\n*.log\n**/secret\n/docs/\n!docs/keep.md\n');
    expect(ignore.ignores('node_modules')).toBe(true);
    expect(ignore.ignores('node_modules/lit/package.json')).toBe(true);
    expect(ignore.ignores('npm-debug.log')).toBe(true);
    // A pattern without ** matches from the context's root only.
    expect(ignore.ignores('logs/npm-debug.log')).toBe(false);
    expect(ignore.ignores('secret')).toBe(true);
    expect(ignore.ignores('deep/down/secret')).toBe(true);
    expect(ignore.ignores('docs/flows.md')).toBe(true);
    expect(ignore.ignores('docs/keep.md')).toBe(false);
    expect(ignore.ignores('src/index.ts')).toBe(false);
    expect(ignore.hasExceptions).toBe(true);
  });

  it('maps container paths into a stage root and leaves every other path alone', () => {
    const roots = ['app', 'data', 'flows'];
    expect(mapPaths('mkdir -p /data /flows && chown node:node /data /usr/bin', roots, '/s/runtime')).toBe(
      'mkdir -p /s/runtime/data /s/runtime/flows && chown node:node /s/runtime/data /usr/bin',
    );
    expect(mapPaths('ONBOARDING_DATABASE=/data/db', roots, '/s')).toBe('ONBOARDING_DATABASE=/s/data/db');
    for (const untouched of [
      "fetch('http://127.0.0.1:3100/readyz')",
      '/database',
      'dist/server.mjs',
      'http://host/app',
    ]) {
      expect(mapPaths(untouched, roots, '/s')).toBe(untouched);
    }
  });

  // Two npm ci's (from npm's cache) and a full build: about two minutes on a busy 2-core machine.
  it(
    'builds: every stage replays, and the runtime stage checks flows, answers /readyz, serves the script, its chunks and the dashboard, and passes its HEALTHCHECK',
    { timeout: 900_000 },
    async () => {
      const scratch = mkdtempSync(join(tmpdir(), 'onboarding-image-'));
      let child: ChildProcess | undefined;
      try {
        const stages = await replayDockerfile({ context, scratch, env: imageEnv() });
        const runtime = stages.find((stage) => stage.name === 'runtime')!;
        const app = runtime.workdir;
        // Production packages only, the build, and nothing of the sources.
        // A development package that a production one also needs (semver, under fastify) is rightly there.
        const { devDependencies } = JSON.parse(readFileSync(join(context, 'package.json'), 'utf8'));
        const { packages } = JSON.parse(readFileSync(join(context, 'package-lock.json'), 'utf8'));
        const devOnly = Object.keys(devDependencies).filter((name) => packages[`node_modules/${name}`]?.dev);
        expect(devOnly).toContain('vitest');
        expect(devOnly.filter((name) => existsSync(join(app, 'node_modules', name)))).toEqual([]);
        expect(existsSync(join(app, 'dist/server.mjs'))).toBe(true);
        expect(existsSync(join(app, 'src'))).toBe(false);

        // The flow folder, as `docker run -v "$PWD/flows:/flows:ro"` mounts it; the flow checker runs from the image too.
        const flows = runtime.env.ONBOARDING_FLOWS;
        cpSync(join(context, 'demo/flows'), flows, { recursive: true });
        await run('node', ['dist/flows.mjs', 'check', flows], { cwd: app, env: { ...imageEnv(), ...runtime.env } });

        // As `docker run -e …`: a free loopback port, a key, and the dashboard on.
        child = startCommand(runtime, imageEnv(), {
          ONBOARDING_PORT: '0',
          ONBOARDING_HOST: '127.0.0.1',
          ONBOARDING_PUBLIC_KEYS: 'pk_image',
          ONBOARDING_DASHBOARD: 'true',
        });
        const url = await listening(child);
        const ready = await fetch(`${url}/readyz`);
        expect(ready.status).toBe(200);
        expect(await ready.json()).toMatchObject({ status: 'ready', flows: expect.any(Number) });
        for (const chunk of ['onboarding.js', 'onboarding-tour.js']) {
          const response = await fetch(`${url}/${chunk}`);
          expect(response.status, chunk).toBe(200);
          expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(join(app, 'dist', chunk))), chunk).toBe(
            true,
          );
        }
        const dashboard = await fetch(`${url}/dashboard`);
        expect(dashboard.status).toBe(200);
        await dashboard.arrayBuffer();

        // The image's own health check, with the port the service took.
        const [file, ...argv] = runtime.healthcheck!.command;
        await run(file, argv, { cwd: app, env: { ...imageEnv(), ...runtime.env, ONBOARDING_PORT: new URL(url).port } });

        // `docker stop` sends SIGTERM: the service finishes and exits 0.
        const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
      } finally {
        if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        // Two node_modules trees take a while to delete: a process of its own does it while the other tests run on.
        spawn('rm', ['-rf', scratch], { detached: true, stdio: 'ignore' }).unref();
      }
    },
  );
});
