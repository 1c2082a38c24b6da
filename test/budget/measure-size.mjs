// `npm run size`: prints the minified, gzip and brotli bytes of each script-tag file (dist/onboarding.js and the chunks it loads on demand) against the budgets in package.json.
import { readFileSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = new URL('../../', import.meta.url);

/** The gzip budgets, by file: `{ "dist/onboarding.js": { "gzip": n }, … }`. */
export function budgets() {
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  return pkg.budget;
}

export function measureBundle(file = 'dist/onboarding.js') {
  const code = readFileSync(fileURLToPath(new URL(file, root)));
  return {
    minified: code.length,
    gzip: gzipSync(code, { level: 9 }).length,
    brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const kb = (n) => `${(n / 1024).toFixed(2)} KB`;
  for (const [file, limit] of Object.entries(budgets())) {
    const size = measureBundle(file);
    console.log(file);
    console.log(`  minified: ${String(size.minified).padStart(7)} bytes (${kb(size.minified)})`);
    console.log(
      `  gzip:     ${String(size.gzip).padStart(7)} bytes (${kb(size.gzip)})  budget ${limit.gzip} bytes (${kb(limit.gzip)})`,
    );
    console.log(`  brotli:   ${String(size.brotli).padStart(7)} bytes (${kb(size.brotli)})`);
    if (size.gzip > limit.gzip) {
      console.error(`  Over budget by ${size.gzip - limit.gzip} bytes gzip.`);
      process.exitCode = 1;
    }
  }
}
