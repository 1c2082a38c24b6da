// The package installs the usual ways: `npm pack` holds the builds, types, manifest, schema, bins and licence.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

describe('the npm package', () => {
  it('packs the builds, types, manifest, schema and licence, and no tests', async () => {
    // --ignore-scripts: the suite's global setup has built dist/ already.
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { maxBuffer: 10 * 1024 * 1024 });
    const files: string[] = JSON.parse(stdout)[0].files.map((file: { path: string }) => file.path);
    for (const file of ['LICENSE', 'README.md', 'package.json', 'dist/onboarding.js', 'dist/onboarding.mjs', 'dist/types/index.d.ts', 'dist/custom-elements.json', 'dist/server.mjs', 'dist/flows.mjs', 'schema/flow.schema.json', 'docs/flows.md']) {
      expect(files).toContain(file);
    }
    expect(files.filter((file) => file.startsWith('test/') || file.startsWith('demo/') || file.startsWith('.data/'))).toEqual([]);
  });

  it('points every export and bin at a file the build makes, and builds on install from git (prepare)', () => {
    const targets = [...Object.values(pkg.exports).flatMap((entry) => (typeof entry === 'string' ? [entry] : Object.values(entry as object))), ...Object.values(pkg.bin)];
    for (const target of targets as string[]) expect(existsSync(target), target).toBe(true);
    expect(readFileSync('dist/flows.mjs', 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    expect(pkg.scripts.prepare).toBe('npm run build');
    expect(pkg.license).toBe('MIT');
    expect(readFileSync('LICENSE', 'utf8')).toMatch(/^MIT License/);
  });
});
