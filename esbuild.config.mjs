// Build: the script-tag IIFE and its on-demand chunks (every element, the start rules, debug(), the strings; the IIFE holds their SHA-384s, or those of an index of them), the ESM build for bundlers,
// the service's runnable build, and the author tools of tools/ (the selector picker, the dashboard, the live preview), all with source maps.
// Usage: node esbuild.config.mjs [--only=browser|server|dashboard] [--metafile=<path>]
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { build, transformSync } from 'esbuild';
import ts from 'typescript';
import { minify } from 'terser';
import { chunkEntry, chunksOf, elementFilesModule, readElementTable } from './scripts/elements.mjs';

const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
const metafilePath = process.argv.find((arg) => arg.startsWith('--metafile='))?.slice('--metafile='.length);

/**
 * Minifies CSS text with esbuild; `declarations` is a declaration list (the body of a rule), not a stylesheet.
 * esbuild keeps custom property values as written; the white space after their colon and after a comma goes too
 * (a value with a quoted comma would keep it, but these styles have none).
 */
function minifyCss(text, declarations = false) {
  const code = transformSync(declarations ? `a{${text}}` : text, { loader: 'css', minify: true })
    .code.trim()
    .replace(/(--[\w-]+):\s+/g, '$1:')
    .replace(/,\s+/g, ',');
  return declarations ? `${code.slice(2, -1)};` : code;
}

/**
 * Hand-written because both HTML-literal minifiers made a file larger (gzip bytes, against this plugin's): with
 * @literals/html-css-minifier 4.0.2, dist/onboarding.js 24,647 (+101, over its budget) and the checklist chunk
 * 2,049 (+6); with minify-html-literals 1.3.5 (on html-minifier 4, unmaintained), dist/onboarding.js 24,576 (+30),
 * the collection chunk 528 (+1) and the picker 4,727 (+19). Neither minifies `unsafeCSS` literals.
 * It minifies the text of `css` templates (and of `unsafeCSS` literals) with esbuild's CSS minifier, and collapses
 * runs of white space in `html` templates to one space, which HTML renders the same outside <pre> (none in these
 * templates). esbuild's JavaScript minifier leaves template text as written. The templates are found with
 * TypeScript's parser, so templates nested in another's `${…}` are squeezed too.
 */
const squeezeTemplates = {
  name: 'squeeze-templates',
  setup(b) {
    b.onLoad({ filter: /(src[\\/]components|tools[\\/]picker)[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const file = ts.createSourceFile(args.path, source, ts.ScriptTarget.Latest, true);
      const edits = [];
      const visit = (node) => {
        const tag = ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) ? node.tag.text : undefined;
        const literal =
          ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'unsafeCSS'
            ? node.arguments[0]
            : undefined;
        if (tag === 'html' || tag === 'css') {
          const template = node.template;
          // The text pieces between the substitutions, with where each sits in the source (inside the backticks).
          const pieces = ts.isNoSubstitutionTemplateLiteral(template)
            ? [template]
            : [template.head, ...template.templateSpans.map((span) => span.literal)];
          const texts = pieces.map((piece) => piece.rawText);
          const squeezed = tag === 'html' ? texts.map((text) => text.replace(/\s+/g, ' ')) : squeezeCssPieces(texts);
          pieces.forEach((piece, i) => {
            const start = piece.getStart(file) + 1;
            const end = piece.end - (ts.isTemplateHead(piece) || ts.isTemplateMiddle(piece) ? 2 : 1);
            edits.push({ start, end, text: squeezed[i] });
          });
        } else if (literal && ts.isNoSubstitutionTemplateLiteral(literal)) {
          edits.push({
            start: literal.getStart(file) + 1,
            end: literal.end - 1,
            text: minifyCss(literal.rawText, true),
          });
        }
        ts.forEachChild(node, visit);
      };
      visit(file);
      let contents = source;
      for (const edit of edits.sort((x, y) => y.start - x.start))
        contents = contents.slice(0, edit.start) + edit.text + contents.slice(edit.end);
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * A `css` template's pieces minified together: each substitution (a declaration list, as in base.styles.ts) stands in
 * as a custom property the minifier keeps, and the text is cut back into pieces around them.
 */
function squeezeCssPieces(texts) {
  const mark = (i) => `--squeeze-${i}:0`;
  const joined = texts.map((text, i) => (i ? `${mark(i - 1)};${text}` : text)).join('');
  let code = minifyCss(joined);
  const pieces = [];
  for (let i = 0; i < texts.length - 1; i++) {
    const at = code.indexOf(mark(i));
    if (at < 0) throw new Error(`squeeze-templates: lost substitution ${i} of a css template`);
    pieces.push(code.slice(0, at));
    code = code.slice(at + mark(i).length).replace(/^;/, '');
  }
  pieces.push(code);
  return pieces;
}

/** The table of elements (src/components/elements.ts): the chunks, their entries and the script's list of tags follow from it. */
const ELEMENT_TABLE = await readElementTable();
/** The chunks of the elements the script tag loads on demand (all of them), each built as dist/onboarding-<chunk>.js. */
const CHUNKS = chunksOf(ELEMENT_TABLE).map((chunk) => chunk.name);
/** The languages of the built-in strings' chunks, as src/components/shared/locale.ts lists them (checked in the size test). */
export const STRING_LANGUAGES = ['fr', 'de', 'es', 'pt-BR', 'ja', 'zh-Hans', 'ar', 'he'];

/**
 * What src/components/chunks/chunk-host.ts provides: for each module it imports from (by its specifier, with
 * `../shared/x.js` as `shared/x`), each imported name (`default` for a default import) and its index in the host list.
 */
function hostProvides() {
  const path = 'src/components/chunks/chunk-host.ts';
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const imported = new Map();
  let list;
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && node.importClause && !node.importClause.isTypeOnly) {
      const specifier = node.moduleSpecifier.text;
      const key = specifier.startsWith('.')
        ? relative('src/components', join('src/components/chunks', specifier)).split(sep).join('/').replace(/\.js$/, '')
        : specifier;
      if (node.importClause.name) imported.set(node.importClause.name.text, [key, 'default']);
      for (const element of node.importClause.namedBindings?.elements ?? [])
        if (!element.isTypeOnly) imported.set(element.name.text, [key, (element.propertyName ?? element.name).text]);
    }
    if (ts.isArrayLiteralExpression(node)) list = node;
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (!list) throw new Error(`${path}: no host list found`);
  const provided = {};
  list.elements.forEach((element, index) => {
    const [key, name] = imported.get(element.getText(file)) ?? [];
    if (!key) throw new Error(`${path}: ${element.getText(file)} in the host list is not imported`);
    (provided[key] ??= {})[name] = index;
  });
  return provided;
}

/**
 * A chunk takes Lit and the shared element code from the script that loaded it (chunk-host.ts), so the page runs one
 * Lit and one set of stores: each import of those modules becomes a read of the host list. An import of Lit, or of a
 * module outside the chunk's own folder, that the host does not provide fails the build, so no chunk carries a second
 * copy of Lit or of the stores.
 */
function chunkHost(name) {
  const provided = hostProvides();
  const components = resolve('src/components');
  const own = join(components, name);
  // The target engine, and what it reads of the page, are bundled into each chunk that points at elements (tour, hint);
  // the fields (their answers, validation and 0–10 scale) into the form's and the survey's.
  const targets = join(components, 'targets');
  const fields = join(components, 'fields');
  const page = resolve('src/page');
  // The resource centre's logic (pure but for the stores and the SDK it uses, which the host provides) and the name of
  // the event it tracks go with its element; what the announcement asks of the centres' feeds, with the announcement.
  const bundled =
    {
      'resource-center': ['src/core/resource-center.ts', 'src/core/resource-center-feed.ts', 'src/api/wire/common.ts'],
      announcement: ['src/core/resource-center-feed.ts'],
      debug: ['src/core/debug.ts'],
    }[name]?.map((file) => resolve(file)) ?? [];
  return {
    name: 'chunk-host',
    setup(b) {
      b.onResolve({ filter: /^(lit|lit-html|lit-element|@lit\/.*)(\/.*)?$|^\.\.?\// }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        let key = args.path;
        if (args.path.startsWith('.')) {
          const target = resolve(args.resolveDir, args.path);
          if ([own, targets, fields, page].some((folder) => target.startsWith(folder + sep))) return undefined;
          if (bundled.includes(target.replace(/\.js$/, '.ts'))) return undefined;
          key = relative(components, target).split(sep).join('/').replace(/\.js$/, '');
        }
        if (!provided[key])
          return { errors: [{ text: `the ${name} chunk imports ${args.path}, which chunk-host.ts does not provide` }] };
        return { path: key, namespace: 'chunk-host' };
      });
      b.onLoad({ filter: /.*/, namespace: 'chunk-host' }, (args) => {
        const names = Object.entries(provided[args.path]);
        // Each read is a pure call, so a name the chunk does not use (a store of the same module) is left out of it.
        const read = (index) => `/* @__PURE__ */ host(${index})`;
        const named = names.filter(([imported]) => imported !== 'default');
        const fallback = names.find(([imported]) => imported === 'default');
        return {
          contents: `const host = (index) => globalThis[Symbol.for('onboarding.chunk-host')][index];${named.map(([imported, index]) => `export const ${imported} = ${read(index)};`).join('')}${fallback ? `export default ${read(fallback[1])};` : ''}`,
          loader: 'js',
        };
      });
    },
  };
}

/** Fills src/components/chunks/element-files.ts with literals made from the table, so the script does not carry the table. */
const elementFiles = {
  name: 'element-files',
  setup(b) {
    const contents = elementFilesModule(ELEMENT_TABLE);
    b.onLoad({ filter: /src[\\/]components[\\/]chunks[\\/]element-files\.ts$/ }, () => ({ contents, loader: 'js' }));
  },
};

/**
 * Fills src/components/chunks/integrity.ts (or, with `index`, src/components/chunks/index-integrity.ts) with the
 * SHA-384 (base64) of each built file of `files`, by name, as the `integrity` attribute takes it (the hash the
 * service prints for the script tag itself). Each is 64 characters that every page's first script carries and gzip
 * cannot shrink.
 */
function integrity(files, index = false) {
  const hashes = Object.fromEntries(
    files.map((options) => [
      basename(options.outfile, '.js'),
      createHash('sha384').update(readFileSync(options.outfile)).digest('base64'),
    ]),
  );
  return {
    name: 'chunk-integrity',
    setup(b) {
      const filter = index
        ? /src[\\/]components[\\/]chunks[\\/]index-integrity\.ts$/
        : /src[\\/]components[\\/]chunks[\\/]integrity\.ts$/;
      b.onLoad({ filter }, () => ({
        contents: `export const ${index ? 'INDEX_INTEGRITY' : 'INTEGRITY'} = ${JSON.stringify(hashes)};`,
        loader: 'js',
      }));
    },
  };
}

const browserShared = {
  bundle: true,
  sourcemap: true,
  target: 'es2022',
  tsconfig: 'tsconfig.json',
  legalComments: 'none',
  logLevel: 'warning',
};

const nodeShared = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
  banner: { js: '#!/usr/bin/env node' },
};

export const builds = {
  /** dist/onboarding.js: minified IIFE for a <script> tag; sets window.Onboarding. The elements of the chunks are not in it. */
  iife: {
    ...browserShared,
    entryPoints: ['src/global.ts'],
    outfile: 'dist/onboarding.js',
    format: 'iife',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [elementFiles, squeezeTemplates],
  },
  /** dist/onboarding-<chunk>.js, one per chunk of the table of elements (the hint's and the tour's with the target engine and floating-ui): loaded by dist/onboarding.js from beside itself when a page draws one. */
  ...Object.fromEntries(
    CHUNKS.map((name) => [
      name,
      {
        ...browserShared,
        stdin: chunkEntry(ELEMENT_TABLE, name),
        outfile: `dist/onboarding-${name}.js`,
        format: 'iife',
        minify: true,
        define: { 'process.env.NODE_ENV': '"production"' },
        plugins: [chunkHost(name), squeezeTemplates],
      },
    ]),
  ),
  /** dist/onboarding-watch.js: the start rules and their element watcher, loaded beside the script once a flow has a start rule; the stores are the script's. */
  watch: {
    ...browserShared,
    entryPoints: ['src/page/watch-chunk.ts'],
    outfile: 'dist/onboarding-watch.js',
    format: 'iife',
    minify: true,
    plugins: [chunkHost('watch')],
  },
  /** dist/onboarding-debug.js: Onboarding.debug(), loaded beside the script on its first call; the stores are the script's. */
  debug: {
    ...browserShared,
    entryPoints: ['src/core/debug-chunk.ts'],
    outfile: 'dist/onboarding-debug.js',
    format: 'iife',
    minify: true,
    plugins: [chunkHost('debug')],
  },
  /**
   * dist/onboarding-hashes.js: the SHA-384s of the files few pages load (each language's strings, forwarding, debug()),
   * loaded beside the script (checked by its own) before the first of them.
   */
  hashes: {
    ...browserShared,
    entryPoints: ['src/components/chunks/hashes-chunk.ts'],
    outfile: 'dist/onboarding-hashes.js',
    format: 'iife',
    minify: true,
  },
  /** dist/onboarding-forward.js: init's `forward` option (the SDK's events sent to PostHog or Segment), loaded beside the script when init asks for it. */
  forward: {
    ...browserShared,
    entryPoints: ['src/core/forward-chunk.ts'],
    outfile: 'dist/onboarding-forward.js',
    format: 'iife',
    minify: true,
  },
  /** dist/onboarding-strings-<code>.js: the elements' built-in strings in one language, loaded beside the script when the locale is in it. */
  ...Object.fromEntries(
    STRING_LANGUAGES.map((code) => [
      `strings-${code}`,
      {
        ...browserShared,
        entryPoints: [`src/components/strings/${code}.ts`],
        outfile: `dist/onboarding-strings-${code}.js`,
        format: 'iife',
        minify: true,
      },
    ]),
  ),
  /**
   * dist/onboarding-picker.js: the selector picker flow authors run on their own app from the live preview's bookmarklet.
   * Nothing in dist/onboarding.js loads it, and it shares no code with it.
   */
  picker: {
    ...browserShared,
    entryPoints: ['tools/picker/picker-entry.ts'],
    outfile: 'dist/onboarding-picker.js',
    format: 'iife',
    minify: true,
    plugins: [squeezeTemplates],
  },
  /** dist/onboarding.mjs: ESM for bundler users, every element included; lit and nanostores stay imports so apps share one copy. */
  esm: {
    ...browserShared,
    entryPoints: ['src/index.ts'],
    outfile: 'dist/onboarding.mjs',
    format: 'esm',
    external: ['lit', 'lit/*', 'nanostores'],
  },
  /** dist/server.mjs: the reference service; npm dependencies stay external. Also the `onboarding-server` bin. */
  server: {
    entryPoints: ['server/main.ts'],
    outfile: 'dist/server.mjs',
    ...nodeShared,
  },
  /** dist/flows.mjs: `onboarding-flows`: `check <dir>`, the flow file checker teams run in their CI, and its other commands. */
  flows: {
    entryPoints: ['server/flows/cli.ts'],
    outfile: 'dist/flows.mjs',
    ...nodeShared,
  },
  /** dist/dashboard/: the analytics dashboard the service serves at /dashboard (a module script, its page and stylesheet). */
  dashboard: {
    ...browserShared,
    entryPoints: ['tools/dashboard/main.ts'],
    outfile: 'dist/dashboard/dashboard.js',
    format: 'esm',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
  },
  /** dist/preview/page.js and frame.js: the live preview's scripts, which the service serves with --preview (beside its pages and stylesheet). */
  ...Object.fromEntries(
    ['page', 'frame'].map((name) => [
      `preview-${name}`,
      {
        ...browserShared,
        entryPoints: [`tools/preview/${name}.ts`],
        outfile: `dist/preview/${name}.js`,
        format: 'iife',
        minify: true,
      },
    ]),
  ),
};

/**
 * A second pass over a minified browser file with terser, whose compressor inlines and folds more than esbuild's:
 * about 1.2 KB gzip off dist/onboarding.js. The source map goes through both. `module`: the dashboard is an ES module.
 */
async function compress(file, module = false) {
  const code = readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\n?$/, '');
  const name = basename(file);
  const result = await minify(code, {
    compress: { passes: 2 },
    mangle: true,
    ecma: 2020,
    module,
    sourceMap: { content: readFileSync(`${file}.map`, 'utf8'), filename: name, url: `${name}.map` },
  });
  writeFileSync(file, result.code);
  writeFileSync(`${file}.map`, result.map);
}

const selected =
  only === 'browser'
    ? [
        builds.iife,
        ...CHUNKS.map((name) => builds[name]),
        ...STRING_LANGUAGES.map((code) => builds[`strings-${code}`]),
        builds.watch,
        builds.forward,
        builds.debug,
        builds.hashes,
        builds.picker,
        builds.esm,
      ]
    : only === 'server'
      ? [builds.server, builds.flows, builds['preview-page'], builds['preview-frame']]
      : only === 'dashboard'
        ? [builds.dashboard]
        : Object.values(builds);
const run = async (options) => {
  const result = await build({ ...options, metafile: Boolean(metafilePath) });
  if (options.minify) await compress(options.outfile, options.format === 'esm');
  return result;
};
// The files the script tag loads beside itself are built first: their SHA-384s go into dist/onboarding.js
// (src/components/chunks/integrity.ts), which loads each only if its bytes match; those of the files few pages load
// (the languages' strings, forwarding, debug()) go into dist/onboarding-hashes.js, built after them, whose own goes
// into dist/onboarding.js.
const indexed = [...STRING_LANGUAGES.map((code) => builds[`strings-${code}`]), builds.forward, builds.debug];
const beside = [...CHUNKS.map((name) => builds[name]), builds.watch, builds.hashes];
const last = [builds.iife, builds.hashes];
const first = await Promise.all(selected.filter((options) => !last.includes(options)).map(run));
if (selected.includes(builds.hashes)) first.push(await run({ ...builds.hashes, plugins: [integrity(indexed, true)] }));
const results = selected.includes(builds.iife)
  ? [...first, await run({ ...builds.iife, plugins: [integrity(beside), ...builds.iife.plugins] })]
  : first;
if (selected.includes(builds.dashboard)) {
  mkdirSync('dist/dashboard', { recursive: true });
  for (const file of ['index.html', 'dashboard.css']) copyFileSync(`tools/dashboard/${file}`, `dist/dashboard/${file}`);
}
// The preview's pages as written, and its stylesheet minified, beside its scripts: the service reads them from there.
if (selected.includes(builds['preview-page'])) {
  for (const file of ['index.html', 'frame.html']) copyFileSync(`tools/preview/${file}`, `dist/preview/${file}`);
  writeFileSync(
    'dist/preview/preview.css',
    transformSync(readFileSync('tools/preview/preview.css', 'utf8'), { loader: 'css', minify: true }).code,
  );
}
// With --metafile, esbuild's record of what each browser chunk holds (bench/size.mjs reads it).
if (metafilePath) {
  const outputs = Object.assign({}, ...results.map((result) => result.metafile?.outputs ?? {}));
  writeFileSync(metafilePath, JSON.stringify({ outputs }));
}
