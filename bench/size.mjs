// The script's bytes: minified, gzip and brotli per file a page loads (the script and its chunks), and the share of each dependency and element (esbuild's metafile).
// Usage: node bench/size.mjs   (after npm run build)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { budgets } from '../test/budget/measure-size.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
/**
 * The targets, in bytes gzip: the budgets in package.json, which `npm run size` and the size test hold too (the script
 * of issues 10, 23 and 27, and each chunk's). Every file a page may load from the script's folder.
 */
export const SIZE_TARGETS = Object.fromEntries(Object.entries(budgets()).map(([file, budget]) => [file, budget.gzip]));
const FILES = Object.keys(SIZE_TARGETS);

/** Which part of the code an input file belongs to. */
function partOf(input) {
  // From a checkout whose node_modules links to another's, esbuild names it by the real path (`../x/node_modules/`).
  const dependency = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
  if (dependency)
    return dependency.startsWith('@floating-ui/')
      ? '@floating-ui/*'
      : /^(lit|lit-html|lit-element|@lit\/.*)$/.test(dependency)
        ? 'lit'
        : dependency;
  const element = /^src\/components\/([^/]+)\//.exec(input)?.[1];
  if (element)
    return element === 'shared'
      ? 'elements: shared code'
      : element === 'chunks'
        ? 'the chunk loader'
        : element === 'targets'
          ? 'the target engine'
          : `<onboarding-${element}>`;
  const folder = /^src\/([^/]+)\//.exec(input)?.[1];
  return folder ? `src/${folder}` : 'entry';
}

export async function runSize() {
  const dir = mkdtempSync(join(tmpdir(), 'onboarding-bench-size-'));
  try {
    const metafile = join(dir, 'meta.json');
    execFileSync(process.execPath, ['esbuild.config.mjs', '--only=browser', `--metafile=${metafile}`], {
      cwd: root,
      stdio: 'inherit',
    });
    const { outputs } = JSON.parse(readFileSync(metafile, 'utf8'));
    const files = {};
    for (const file of FILES) {
      const code = readFileSync(join(root, file));
      const gzip = gzipSync(code, { level: 9 }).length;
      const parts = {};
      let total = 0;
      for (const [input, { bytesInOutput }] of Object.entries(outputs[file].inputs)) {
        parts[partOf(input)] = (parts[partOf(input)] ?? 0) + bytesInOutput;
        total += bytesInOutput;
      }
      files[file] = {
        minified: code.length,
        gzip,
        brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
        targetGzip: SIZE_TARGETS[file],
        met: gzip <= SIZE_TARGETS[file],
        // Share of the bundle before the terser pass, which esbuild's metafile describes.
        shares: Object.fromEntries(
          Object.entries(parts)
            .sort(([, a], [, b]) => b - a)
            .map(([part, bytes]) => [part, { bytes, percent: Number(((100 * bytes) / total).toFixed(1)) }]),
        ),
      };
    }
    return files;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printSize(result) {
  for (const [file, size] of Object.entries(result)) {
    console.log(
      `${file}: ${size.minified} B minified, ${size.gzip} B gzip, ${size.brotli} B brotli; target ≤ ${size.targetGzip} B gzip: ${size.met ? 'met' : `MISSED by ${size.gzip - size.targetGzip} B`}`,
    );
    for (const [part, share] of Object.entries(size.shares))
      console.log(`  ${part.padEnd(28)} ${String(share.bytes).padStart(6)} B  ${String(share.percent).padStart(5)} %`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) printSize(await runSize());
