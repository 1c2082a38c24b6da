// The table of elements (src/components/elements.ts) for the build and the package: read it, write the chunks' entries and the script's tag list from it, and check or rewrite package.json's chunk exports and budgets.
// Usage: node scripts/elements.mjs [--write]   (without --write, exits 1 if package.json does not follow the table)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PREFIX = 'onboarding-';

/** The table's rows: compiled with esbuild and evaluated (it is plain data with no imports), so Node needs no TypeScript. */
export async function readElementTable() {
  const code = transformSync(readFileSync(join(root, 'src/components/elements.ts'), 'utf8'), {
    loader: 'ts',
    format: 'esm',
  }).code;
  return (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)).ELEMENT_TABLE;
}

/** The chunks, in the table's order, each with its budget (given on one of its rows). */
export function chunksOf(table) {
  const chunks = new Map();
  for (const { chunk, budget } of table)
    if (!chunks.has(chunk) || budget !== undefined) chunks.set(chunk, budget ?? chunks.get(chunk));
  return [...chunks].map(([name, budget]) => ({ name, budget }));
}

/**
 * A chunk's entry, for esbuild's `stdin`: defines each element of the chunk (unless the page has it already), each
 * class taken from `src/components/<chunk>/<name>.component.ts`.
 */
export function chunkEntry(table, chunk) {
  const rows = table.filter((row) => row.chunk === chunk);
  const imports = rows.map(
    ({ tag, className }) => `import { ${className} } from './${tag.slice(PREFIX.length)}.component.js';\n`,
  );
  const defines = rows.map(
    ({ tag, className }) => `if (!customElements.get('${tag}')) customElements.define('${tag}', ${className});\n`,
  );
  return {
    contents: imports.concat(defines).join(''),
    resolveDir: join(root, 'src/components', chunk),
    sourcefile: `src/components/${chunk}/${chunk}-chunk.ts`,
    loader: 'ts',
  };
}

/**
 * src/components/chunks/element-files.ts as the script tag's build has it: the tags and `fileOf` as literals (the tag's
 * own file but for those of a shared chunk, each tested by name), so the script does not carry the table.
 */
export function elementFilesModule(table) {
  const tags = table.map(({ tag }) => tag);
  const shared = table.filter(({ tag, chunk }) => tag !== `${PREFIX}${chunk}`);
  const fileOf = shared.reduceRight(
    (rest, { tag, chunk }) => `tag === ${JSON.stringify(tag)} ? ${JSON.stringify(`${PREFIX}${chunk}`)} : ${rest}`,
    'tag',
  );
  return `export const ON_DEMAND = ${JSON.stringify(tags)};\nexport const fileOf = (tag) => ${fileOf};\n`;
}

/**
 * package.json's `exports` and `budget` as the table has them: each chunk's export and gzip budget right after the
 * script's, in the table's order; every other entry (the script's own, the start rules' chunk, …) as it stands.
 */
export function packageEntries(pkg, table) {
  const chunks = chunksOf(table);
  const isChunk = (file) => chunks.some(({ name }) => file === `${PREFIX}${name}.js`);
  const after = (entries, key, added) => entries.flatMap((entry) => (entry[0] === key ? [entry, ...added] : [entry]));
  const exports = after(
    Object.entries(pkg.exports).filter(([key]) => !isChunk(key.slice(2))),
    './onboarding.js',
    chunks.map(({ name }) => [`./${PREFIX}${name}.js`, `./dist/${PREFIX}${name}.js`]),
  );
  const budget = after(
    Object.entries(pkg.budget).filter(([key]) => !isChunk(key.slice('dist/'.length))),
    'dist/onboarding.js',
    chunks.map(({ name, budget: gzip }) => [`dist/${PREFIX}${name}.js`, { gzip }]),
  );
  return { exports: Object.fromEntries(exports), budget: Object.fromEntries(budget) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const path = join(root, 'package.json');
  const text = readFileSync(path, 'utf8');
  const pkg = JSON.parse(text);
  const expected = JSON.stringify({ ...pkg, ...packageEntries(pkg, await readElementTable()) }, null, 2) + '\n';
  if (process.argv.includes('--write')) {
    if (expected !== text) writeFileSync(path, expected);
    console.log(
      expected === text
        ? 'package.json follows the table of elements.'
        : 'package.json: chunk exports and budgets rewritten from the table of elements.',
    );
  } else if (expected !== text) {
    console.error(
      'package.json: its chunk exports or budgets differ from the table of elements (src/components/elements.ts); run `npm run elements`.',
    );
    process.exitCode = 1;
  }
}
