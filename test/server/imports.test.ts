// The direction of imports: no module circle in server/ or src/, and server/'s folders import only the layers below them.
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
function importGraph(folder: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(folder)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const targets = importedFiles
      .map((entry) => entry.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(root, resolve(root, dirname(file), name.replace(/\.js$/, '.ts'))))
      .filter((target) => target.startsWith(`${folder}/`));
    graph.set(file, targets);
  }
  return graph;
}

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
  const layer = SERVER_LAYERS.findIndex((folders) => folders.includes(parts[1]!));
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
