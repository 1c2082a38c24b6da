// The YAML files beside the flows (collections.yaml, experiments.yaml): reading one, parsing it, and reporting each problem at its line.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { describeProblems, offsetOf, type FlowFileError, type FlowProblem } from './definitions.js';
import { formatPath } from './schema.js';
import type { AddProblem } from './yaml-values.js';

export { isObject, unknownKeys, type AddProblem } from './yaml-values.js';

/** A parsed side file: its value (undefined when it could not be parsed), its problems so far, and how to add one. */
export interface SideFile {
  value: unknown;
  problems: FlowProblem[];
  add: AddProblem;
}

/** The first of the folder's files named one of `names` (any case), when there is one. */
export function sideFileIn(dir: string, names: readonly string[]): string | undefined {
  let found: string[];
  try {
    found = readdirSync(dir);
  } catch {
    return undefined;
  }
  return found.filter((name) => names.includes(name.toLowerCase())).sort()[0];
}

/** Parses YAML text; a syntax error is the file's one problem. */
export function parseSideFile(text: string): SideFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const at = (offset: number | undefined) => {
    const { line, col } = lines.linePos(offset ?? 0);
    return { line, column: col };
  };
  const problems: FlowProblem[] = [];
  const add: AddProblem = (segments, message, key) =>
    problems.push({
      path: formatPath(key === undefined ? segments : [...segments, key]),
      ...at(offsetOf(doc, segments, key)),
      message,
    });
  if (doc.errors.length) {
    const error = doc.errors[0];
    problems.push({ path: '', ...at(error.pos[0]), message: `bad YAML: ${error.message.split('\n')[0]}` });
    return { value: undefined, problems, add };
  }
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }), problems, add };
  } catch (error) {
    const message = `bad YAML: ${error instanceof Error ? error.message : String(error)}`;
    problems.push({ path: '', line: 1, column: 1, message });
    return { value: undefined, problems, add };
  }
}

/**
 * Reads `file` in `dir` and checks it with `check`. A file that cannot be read, or with any problem, is refused
 * whole (`error`, with every problem).
 */
export function readSideFile<T>(
  dir: string,
  file: string,
  check: (text: string) => { value: T; problems: FlowProblem[] },
): { value?: T; error?: FlowFileError } {
  let text: string;
  try {
    text = readFileSync(join(dir, file), 'utf8');
  } catch (error) {
    const message = `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    const problems = [{ path: '', line: 1, column: 1, message }];
    return { error: { file, message: describeProblems(problems), problems } };
  }
  const { value, problems } = check(text);
  if (problems.length) return { error: { file, message: describeProblems(problems), problems } };
  return { value };
}

/**
 * The folder's file named one of `names`, read and checked with `check` (which lists what it holds); no such file: an
 * empty list. A file with any problem is refused whole (`error`).
 */
export function readListFileIn<T>(
  dir: string,
  names: readonly string[],
  check: (text: string) => { value: T[]; problems: FlowProblem[] },
): { value: T[]; error?: FlowFileError } {
  const file = sideFileIn(dir, names);
  if (!file) return { value: [] };
  const { value, error } = readSideFile(dir, file, check);
  return { value: value ?? [], error };
}

/** Problems in the order they appear in the file. */
export const byLine = (problems: FlowProblem[]): FlowProblem[] =>
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
