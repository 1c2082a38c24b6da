// The direction of imports: no module circle in server/, src/ or tools/; server/'s folders import only the layers below
// them; the script imports neither the service nor the author tools, and they take from it only what both sides share.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * server/'s layers, top first: a module imports from its own folder or from a layer below its own, never above or
 * beside. The root files (main.ts, service.ts, app.ts, config.ts) put the service together and may import anything.
 */
const SERVER_LAYERS: string[][] = [
  ['routes', 'preview'],
  ['http'],
  ['state'],
  ['analytics', 'webhooks'],
  ['flows'],
  ['targeting'],
  ['storage'],
  ['shared'],
];

function sources(folder: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(join(root, folder))) {
    const path = join(folder, name);
    if (statSync(join(root, path)).isDirectory()) found.push(...sources(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

/** Each module's relative imports, type-only ones and re-exports included, as paths from the repository's root. */
function relativeImports(folder: string): Map<string, string[]> {
  const imports = new Map<string, string[]>();
  for (const file of sources(folder)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const targets = importedFiles
      .map((entry) => entry.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(root, resolve(root, dirname(file), name.replace(/\.js$/, '.ts'))));
    imports.set(file, targets);
  }
  return imports;
}

/** The modules of `folder` and their imports within it. */
function importGraph(folder: string): Map<string, string[]> {
  return new Map(
    [...relativeImports(folder)].map(([file, targets]) => [
      file,
      targets.filter((target) => target.startsWith(`${folder}/`)),
    ]),
  );
}

/** Each import of a module of `folder` that leaves it and that `allowed` refuses, as "file imports target". */
function importsOut(folder: string, allowed: (target: string, file: string) => boolean): string[] {
  const refused: string[] = [];
  for (const [file, targets] of relativeImports(folder)) {
    for (const target of targets)
      if (!target.startsWith(`${folder}/`) && !allowed(target, file)) refused.push(`${file} imports ${target}`);
  }
  return refused;
}

/**
 * What the author tools may take from src/: the wire types and shared checks (src/api/), the picker's reading of the
 * selector syntax (src/page/query.ts, so a picked selector finds what the script finds), and the Flow the preview hands
 * the elements (src/flows/flow.ts, its types only).
 */
const TOOLS_MAY_IMPORT = ['src/api/', 'src/page/query.ts', 'src/flows/flow.ts'];

/** The graph's circles: its strongly connected components of more than one module, or of one that imports itself. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)!.includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** A server module's layer: -1 for the root files, else the index of its folder in SERVER_LAYERS. */
function layerOf(file: string): number {
  const parts = file.split('/');
  if (parts.length === 2) return -1;
  const layer = SERVER_LAYERS.findIndex((folders) => folders.includes(parts[1]));
  if (layer < 0) throw new Error(`${parts[1]}/ is in no layer of SERVER_LAYERS: place it there`);
  return layer;
}

describe('imports', () => {
  it('finds a circle when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(circles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('has no import circle in server/', () => {
    expect(circles(importGraph('server'))).toEqual([]);
  });

  it('has no import circle in src/', () => {
    expect(circles(importGraph('src'))).toEqual([]);
  });

  it('has no import circle in tools/', () => {
    expect(circles(importGraph('tools'))).toEqual([]);
  });

  it('keeps the script on its own: src/ imports nothing outside it, neither the service nor the author tools', () => {
    expect(importsOut('src', () => false)).toEqual([]);
  });

  it('lets the service take from src/ only what both sides share (src/api/), and nothing from tools/', () => {
    expect(
      importsOut('server', (target) =>
        target.startsWith('src/') ? target.startsWith('src/api/') : !target.startsWith('tools/'),
      ),
    ).toEqual([]);
  });

  it('lets each author tool take from src/ only what TOOLS_MAY_IMPORT names, nothing from server/ or another tool', () => {
    const ownTool = (file: string) => file.split('/').slice(0, 2).join('/');
    const refused = [
      ...importsOut('tools', (target) =>
        TOOLS_MAY_IMPORT.some((allowed) => (allowed.endsWith('/') ? target.startsWith(allowed) : target === allowed)),
      ),
      ...[...relativeImports('tools')].flatMap(([file, targets]) =>
        targets
          .filter((target) => target.startsWith('tools/') && ownTool(target) !== ownTool(file))
          .map((target) => `${file} imports ${target}`),
      ),
    ];
    expect(refused).toEqual([]);
  });

  it("imports within server/ only from the module's own folder or a layer below it", () => {
    const upward: string[] = [];
    for (const [file, targets] of importGraph('server')) {
      for (const target of targets) {
        const sameFolder = dirname(file) === dirname(target);
        if (!sameFolder && layerOf(target) <= layerOf(file)) upward.push(`${file} imports ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });
});
