// One table of elements: the define list, the tag map, the chunks' entries, the script's tag list, package.json's exports and budgets, and the manifest all follow src/components/elements.ts.
import { existsSync, readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ELEMENT_TABLE } from '../../src/components/elements.js';
import { fileOf, ON_DEMAND } from '../../src/components/chunks/element-files.js';
import type { OnboardingHint, OnboardingTooltip, OnboardingTour } from '../../src/index.js';
import type {} from '../../src/components/register.js';
import { FLOW_TYPES } from '../../src/api/wire/common.js';
import { tagOf } from '../../src/components/shared/on-demand.js';
import { codeSnippetFor } from '../../server/flows/flow-json.js';
// @ts-expect-error plain .mjs build script without types
import { chunkEntry, chunksOf, elementFilesModule, packageEntries, readElementTable } from '../../scripts/elements.mjs';
// @ts-expect-error plain .mjs build script without types
import { buildManifest } from '../../scripts/custom-elements-manifest.mjs';

const read = (path: string) => readFileSync(path, 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  exports: Record<string, unknown>;
  budget: Record<string, { gzip: number }>;
};
const chunks = chunksOf(ELEMENT_TABLE) as Array<{ name: string; budget: number | undefined }>;
const tags = ELEMENT_TABLE.map((row) => row.tag);

/** The names a module exports by `export { A, B } from '…'` and `export class A`, parsed with TypeScript. */
function exportedNames(path: string): string[] {
  const file = ts.createSourceFile(path, read(path), ts.ScriptTarget.Latest, true);
  return file.statements.flatMap((node) => {
    if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamedExports(node.exportClause))
      return node.exportClause.elements.map((element) => element.name.text);
    if (
      ts.isClassDeclaration(node) &&
      node.name &&
      ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
    )
      return [node.name.text];
    return [];
  });
}

/** Evaluates a module's text (plain JavaScript, no imports). */
const evaluate = async (code: string) =>
  import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`) as Promise<Record<string, unknown>>;

describe('the table of elements', () => {
  it("names each element once, each chunk with one budget, each class in its chunk's folder", () => {
    expect(new Set(tags).size).toBe(tags.length);
    expect([...tags].sort()).toEqual(tags);
    for (const { tag, className, chunk } of ELEMENT_TABLE) {
      expect(tag).toMatch(/^onboarding-[a-z]+(-[a-z]+)*$/);
      expect(exportedNames(`src/components/${chunk}/${tag.slice('onboarding-'.length)}.component.ts`), tag).toContain(
        className,
      );
    }
    for (const { name } of chunks) {
      const budgets = ELEMENT_TABLE.filter((row) => row.chunk === name && 'budget' in row);
      expect(budgets, name).toHaveLength(1);
    }
  });

  it('is what the build reads', async () => {
    expect(await readElementTable()).toEqual(ELEMENT_TABLE);
  });

  it('gives the package its element classes', () => {
    // register.ts looks each row's class up in classes.ts (test/components/element-table.test.ts; the type check holds it to the table).
    expect(exportedNames('src/components/classes.ts').sort()).toEqual(ELEMENT_TABLE.map((row) => row.className).sort());
    expect(read('src/index.ts')).toContain("export * from './components/classes.js';");
  });

  it('types each tag as its class in HTMLElementTagNameMap', () => {
    expectTypeOf<HTMLElementTagNameMap['onboarding-tour']>().toEqualTypeOf<OnboardingTour>();
    expectTypeOf<HTMLElementTagNameMap['onboarding-hint']>().toEqualTypeOf<OnboardingHint>();
    expectTypeOf<HTMLElementTagNameMap['onboarding-tooltip']>().toEqualTypeOf<OnboardingTooltip>();
  });

  it('gives each chunk an entry that defines its elements, and nothing else names one', () => {
    expect(chunks.map((chunk) => chunk.name)).toEqual([...new Set(ELEMENT_TABLE.map((row) => row.chunk))]);
    for (const { name } of chunks) {
      const { contents } = chunkEntry(ELEMENT_TABLE, name) as { contents: string };
      const defined = [...contents.matchAll(/customElements\.define\('([^']+)', (\w+)\)/g)].map((m) => [m[1], m[2]]);
      expect(defined).toEqual(ELEMENT_TABLE.filter((row) => row.chunk === name).map((row) => [row.tag, row.className]));
      // No chunk entry written by hand.
      expect(existsSync(`src/components/${name}/${name}-chunk.ts`)).toBe(false);
    }
  });

  it('gives the script tag its list of elements and the file of each, in its source and as the build writes them', async () => {
    const built = await evaluate(elementFilesModule(ELEMENT_TABLE));
    for (const module of [{ ON_DEMAND, fileOf }, built] as Array<{
      ON_DEMAND: string[];
      fileOf: (tag: string) => string;
    }>) {
      expect(module.ON_DEMAND).toEqual(tags);
      for (const { tag, chunk } of ELEMENT_TABLE) expect(module.fileOf(tag)).toBe(`onboarding-${chunk}`);
    }
    expect(elementFilesModule(ELEMENT_TABLE)).toContain('"onboarding-tooltip" ? "onboarding-hint" : tag');
  });

  it("gives package.json each chunk's export and gzip budget (npm run elements rewrites them)", () => {
    const expected = packageEntries(pkg, ELEMENT_TABLE) as {
      exports: Record<string, unknown>;
      budget: Record<string, { gzip: number }>;
    };
    expect(JSON.stringify(pkg.exports)).toBe(JSON.stringify(expected.exports));
    expect(JSON.stringify(pkg.budget)).toBe(JSON.stringify(expected.budget));
    for (const { name, budget } of chunks) {
      expect(pkg.exports[`./onboarding-${name}.js`]).toBe(`./dist/onboarding-${name}.js`);
      expect(pkg.budget[`dist/onboarding-${name}.js`]).toEqual({ gzip: budget });
    }
    // Besides the chunks of the table, the script tag's files are the script, the start rules' chunk, forwarding's,
    // debug()'s and the index of the hashes of the files few pages load, which are no elements.
    const scriptFiles = (keys: string[], prefix: string) =>
      keys
        .filter((key) => key.startsWith(`${prefix}onboarding`) && key.endsWith('.js'))
        .map((key) => key.slice(prefix.length));
    const files = [
      ...chunks.map(({ name }) => `onboarding-${name}.js`),
      'onboarding.js',
      'onboarding-watch.js',
      'onboarding-forward.js',
      'onboarding-debug.js',
      'onboarding-hashes.js',
    ].sort();
    expect(scriptFiles(Object.keys(pkg.exports), './').sort()).toEqual(files);
    expect(scriptFiles(Object.keys(pkg.budget), 'dist/').sort()).toEqual(files);
  });

  it('is what the custom-elements manifest describes, tag by tag and class by class', () => {
    const manifest = buildManifest() as {
      modules: Array<{ path: string; declarations: Array<{ name: string; tagName: string }> }>;
    };
    const described = manifest.modules.flatMap((module) =>
      module.declarations.map((d) => ({ tag: d.tagName, className: d.name, path: module.path })),
    );
    expect(described.map(({ tag, className }) => [tag, className]).sort()).toEqual(
      ELEMENT_TABLE.map((row) => [row.tag, row.className]).sort(),
    );
    for (const { tag, path } of described) {
      const row = ELEMENT_TABLE.find((r) => r.tag === tag)!;
      expect(path).toBe(`src/components/${row.chunk}/${tag.slice('onboarding-'.length)}.component.ts`);
    }
  });

  it("has the element of each flow type, as auto-mount and the service's code snippets name it", () => {
    // The service takes from src/ only src/api/, so its snippets keep their own map, held to the table here.
    for (const type of FLOW_TYPES) {
      const tag = type === 'CUSTOM' ? 'onboarding-flow' : tagOf(type);
      expect(tags, type).toContain(tag);
      expect(codeSnippetFor('a-flow', type)).toBe(`<${tag} flow="a-flow"></${tag}>`);
    }
  });
});
