// Build: the script-tag IIFE and its on-demand tour chunk, the ESM build for bundlers, the service's runnable build and
// the dashboard, all with source maps.
// Usage: node esbuild.config.mjs [--only=browser|server|dashboard] [--metafile=<path>]
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { build, transformSync } from 'esbuild';
import ts from 'typescript';
import { minify } from 'terser';

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
 * Minifies the text of `css` templates (and of `unsafeCSS` literals) with esbuild's CSS minifier, and collapses runs of
 * white space in `html` templates to one space, which HTML renders the same outside <pre> (none in these templates).
 * esbuild's JavaScript minifier leaves template text as written. The templates are found with TypeScript's parser, so
 * templates nested in another's `${…}` are squeezed too.
 */
const squeezeTemplates = {
  name: 'squeeze-templates',
  setup(b) {
    b.onLoad({ filter: /src[\\/]components[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const file = ts.createSourceFile(args.path, source, ts.ScriptTarget.Latest, true);
      const edits = [];
      const visit = (node) => {
        const tag = ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) ? node.tag.text : undefined;
        const literal = ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'unsafeCSS' ? node.arguments[0] : undefined;
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
          edits.push({ start: literal.getStart(file) + 1, end: literal.end - 1, text: minifyCss(literal.rawText, true) });
        }
        ts.forEachChild(node, visit);
      };
      visit(file);
      let contents = source;
      for (const edit of edits.sort((x, y) => y.start - x.start)) contents = contents.slice(0, edit.start) + edit.text + contents.slice(edit.end);
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

/**
 * The tour chunk takes Lit and the shared element code from the script that loaded it (src/components/tour/tour-host.ts),
 * so the page runs one Lit and one set of stores. Each import of those modules becomes a read of the host object; the
 * names each provides are read from tour-host.ts, so a name the chunk needs and the host lacks fails the build.
 */
function tourHost() {
  const source = readFileSync('src/components/tour/tour-host.ts', 'utf8');
  const provided = Object.fromEntries(
    [...source.matchAll(/^\s+'?([\w./-]+)'?: \{ ([^}]*) \},$/gm)].map(([, key, names]) => [key, names.split(',').map((name) => name.trim().split(':')[0].trim())]),
  );
  return {
    name: 'tour-host',
    setup(b) {
      b.onResolve({ filter: /^lit$|\/shared\/[\w.-]+\.js$/ }, (args) => {
        const key = args.path.startsWith('lit') ? args.path : basename(args.path, '.js');
        if (!provided[key]) return { errors: [{ text: `the tour chunk imports ${args.path}, which tour-host.ts does not provide` }] };
        return { path: key, namespace: 'tour-host' };
      });
      b.onLoad({ filter: /.*/, namespace: 'tour-host' }, (args) => {
        const names = provided[args.path];
        const host = `globalThis[Symbol.for('onboarding.tour-host')][${JSON.stringify(args.path)}]`;
        const named = names.filter((name) => name !== 'default');
        return {
          contents: `const h = ${host};${named.length ? `export const { ${named.join(', ')} } = h;` : ''}${names.includes('default') ? 'export default h.default;' : ''}`,
          loader: 'js',
        };
      });
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
  /** dist/onboarding.js: minified IIFE for a <script> tag; sets window.Onboarding. The tour is not in it. */
  iife: {
    ...browserShared,
    entryPoints: ['src/global.ts'],
    outfile: 'dist/onboarding.js',
    format: 'iife',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [squeezeTemplates],
  },
  /** dist/onboarding-tour.js: <onboarding-tour> and floating-ui, loaded by dist/onboarding.js from beside itself when needed. */
  tour: {
    ...browserShared,
    entryPoints: ['src/components/tour/tour-chunk.ts'],
    outfile: 'dist/onboarding-tour.js',
    format: 'iife',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [tourHost(), squeezeTemplates],
  },
  /** dist/onboarding.mjs: ESM for bundler users, the tour included; lit and nanostores stay imports so apps share one copy. */
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
  /** dist/flows.mjs: `onboarding-flows check <dir>`, the flow file checker teams run in their CI. */
  flows: {
    entryPoints: ['server/flows/cli.ts'],
    outfile: 'dist/flows.mjs',
    ...nodeShared,
  },
  /** dist/dashboard/: the analytics dashboard the service serves at /dashboard (a module script, its page and stylesheet). */
  dashboard: {
    ...browserShared,
    entryPoints: ['src/dashboard/main.ts'],
    outfile: 'dist/dashboard/dashboard.js',
    format: 'esm',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
  },
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
    ? [builds.iife, builds.tour, builds.esm]
    : only === 'server'
      ? [builds.server, builds.flows]
      : only === 'dashboard'
        ? [builds.dashboard]
        : Object.values(builds);
const results = await Promise.all(
  selected.map(async (options) => {
    const result = await build({ ...options, metafile: Boolean(metafilePath) });
    if (options.minify) await compress(options.outfile, options.format === 'esm');
    return result;
  }),
);
if (selected.includes(builds.dashboard)) {
  mkdirSync('dist/dashboard', { recursive: true });
  for (const file of ['index.html', 'dashboard.css']) copyFileSync(`src/dashboard/${file}`, `dist/dashboard/${file}`);
}
// With --metafile, esbuild's record of what each browser chunk holds (bench/size.mjs reads it).
if (metafilePath) {
  const outputs = Object.assign({}, ...results.map((result) => result.metafile?.outputs ?? {}));
  writeFileSync(metafilePath, JSON.stringify({ outputs }));
}
