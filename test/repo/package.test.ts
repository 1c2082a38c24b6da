// The npm package: `npm pack` holds the builds with every script chunk, types, manifest, schema, bins, licence and changelog, and nothing else.
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { builtinModules } from 'node:module';
import { promisify } from 'node:util';
import semver from 'semver';
import { beforeAll, describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

/** Every kind of file the package may hold; a packed file that matches none is a slip in `files`. */
const SHIPPED = [
  /^(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/,
  // The script tag's file, its chunks and the ESM build, each with its map (the service serves the script's maps).
  /^dist\/onboarding[\w.-]*\.m?js(\.map)?$/,
  /^dist\/types\/[\w/.-]+\.d\.ts$/,
  /^dist\/custom-elements\.json$/,
  /^dist\/(server|flows)\.mjs(\.map)?$/,
  /^dist\/dashboard\/[\w.-]+$/,
  /^dist\/preview\/[\w.-]+$/,
  /^schema\/flow\.schema\.json$/,
  /^docs\/[\w-]+\.md$/,
];

let packed: string[];
beforeAll(async () => {
  // --ignore-scripts: the suite's global setup has built dist/ already.
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    maxBuffer: 10 * 1024 * 1024,
  });
  packed = JSON.parse(stdout)[0].files.map((file: { path: string }) => file.path);
});

/** The npm packages a built file imports (static and dynamic), by package name, without Node's own modules. */
function importedPackages(file: string): string[] {
  const code = readFileSync(file, 'utf8');
  const specifiers = [
    ...code.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*"([^"]+)"|^import\s*"([^"]+)"|\bimport\("([^"]+)"\)/gm),
  ].map((m) => m[1] ?? m[2] ?? m[3]);
  const names = specifiers
    .filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtinModules.includes(s))
    .map((s) =>
      s
        .split('/')
        .slice(0, s.startsWith('@') ? 2 : 1)
        .join('/'),
    );
  return [...new Set(names)].sort();
}

describe('the npm package', () => {
  it('packs the builds, types, manifest, schema, licence and changelog', () => {
    for (const file of [
      'LICENSE',
      'README.md',
      'CHANGELOG.md',
      'package.json',
      'dist/onboarding.js',
      'dist/onboarding.mjs',
      'dist/types/index.d.ts',
      'dist/custom-elements.json',
      'dist/server.mjs',
      'dist/flows.mjs',
      'dist/dashboard/index.html',
      'schema/flow.schema.json',
      'docs/flows.md',
    ]) {
      expect(packed).toContain(file);
    }
  });

  it('packs every script chunk, dashboard and preview file the build makes, with its source map, as the service serves them', () => {
    const chunks = readdirSync('dist').filter((name) => /^onboarding[\w.-]*\.js$/.test(name));
    expect(chunks).toContain('onboarding-tour.js');
    for (const chunk of chunks) expect(packed).toEqual(expect.arrayContaining([`dist/${chunk}`, `dist/${chunk}.map`]));
    for (const name of readdirSync('dist/dashboard')) expect(packed).toContain(`dist/dashboard/${name}`);
    for (const name of readdirSync('dist/preview')) expect(packed).toContain(`dist/preview/${name}`);
  });

  it('packs nothing else: no sources, tests, demo, benchmarks, build scripts or declaration maps', () => {
    expect(packed.filter((file) => !SHIPPED.some((kind) => kind.test(file)))).toEqual([]);
  });

  it('can be published: not private, with a changelog section for its version', () => {
    expect(pkg.private).toBeUndefined();
    expect(pkg.name).toBe('open-onboarding');
    expect(readFileSync('CHANGELOG.md', 'utf8')).toContain(`## [${pkg.version}]`);
  });

  it('imports at run time only packages in its dependencies, not dev-only ones', () => {
    const dependencies = Object.keys(pkg.dependencies);
    const imported = ['dist/server.mjs', 'dist/flows.mjs', 'dist/onboarding.mjs'].flatMap(importedPackages);
    expect(imported).toEqual(expect.arrayContaining(['@electric-sql/pglite', 'fastify', 'lit', 'pg', 'yaml']));
    expect([...new Set(imported)].filter((name) => !dependencies.includes(name))).toEqual([]);
  });

  it('points every export and bin at a file the build makes, and builds on install from git (prepare)', () => {
    const targets = [
      ...Object.values(pkg.exports).flatMap((entry) =>
        typeof entry === 'string' ? [entry] : Object.values(entry as object),
      ),
      ...Object.values(pkg.bin),
    ];
    for (const target of targets as string[]) {
      expect(existsSync(target), target).toBe(true);
      expect(packed, target).toContain(target.replace(/^\.\//, ''));
    }
    expect(readFileSync('dist/flows.mjs', 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    expect(pkg.scripts.prepare).toBe('npm run build');
    expect(pkg.license).toBe('MIT');
    expect(readFileSync('LICENSE', 'utf8')).toMatch(/^MIT License/);
  });
});

describe('packing', () => {
  it(
    'cleans dist/ and builds first, so a stale file of an older build is not packed',
    { timeout: 240_000 },
    async () => {
      // A copy of the checkout (tracked and new files, not what .gitignore leaves out) with a leftover chunk in dist/.
      const { stdout: files } = await promisify(execFile)('git', [
        'ls-files',
        '-z',
        '--cached',
        '--others',
        '--exclude-standard',
      ]);
      const copy = mkdtempSync(join(tmpdir(), 'onboarding-pack-'));
      try {
        for (const file of files.split('\0').filter((name) => name && existsSync(name))) {
          mkdirSync(dirname(join(copy, file)), { recursive: true });
          cpSync(file, join(copy, file));
        }
        symlinkSync(resolve('node_modules'), join(copy, 'node_modules'), 'dir');
        mkdirSync(join(copy, 'dist'));
        writeFileSync(join(copy, 'dist/onboarding-old-chunk.js'), '/* an older build */');
        const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json'], {
          cwd: copy,
          maxBuffer: 10 * 1024 * 1024,
        });
        const paths: string[] = JSON.parse(stdout.slice(stdout.indexOf('[')))[0].files.map(
          (file: { path: string }) => file.path,
        );
        expect(paths).toContain('dist/onboarding.js');
        expect(paths).not.toContain('dist/onboarding-old-chunk.js');
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    },
  );
});

describe('a fresh install', () => {
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
  const locked = Object.entries(
    lock.packages as Record<string, { engines?: { node?: string }; hasInstallScript?: boolean }>,
  ).filter(([path]) => path);
  const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

  it('allows each install script it runs, by name, so npm 11 does not warn of it', () => {
    const scripted = locked.filter(([, entry]) => entry.hasInstallScript).map(([path]) => nameOf(path));
    expect(scripted).toContain('esbuild');
    expect(scripted.filter((name) => pkg.allowScripts?.[name] !== true)).toEqual([]);
  });

  it('declares a Node every locked package accepts, so npm warns of no engine', () => {
    expect(semver.satisfies(process.versions.node, pkg.engines.node)).toBe(true);
    const refused = locked.filter(
      ([, entry]) => entry.engines?.node && !semver.subset(pkg.engines.node, entry.engines.node),
    );
    expect(refused.map(([path, entry]) => `${nameOf(path)} ${entry.engines!.node}`)).toEqual([]);
  });
});
