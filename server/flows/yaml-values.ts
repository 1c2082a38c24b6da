// Checking values read from YAML: mappings, and keys a file should not have.
import { closest, type PathSegment } from './schema.js';

/** Reports a problem at a path of the file (the key itself when `key` is given). */
export type AddProblem = (segments: PathSegment[], message: string, key?: string) => void;

/** Reports each key of `value` that is not in `known`, with the closest known one. */
export function unknownKeys(
  value: Record<string, unknown>,
  known: readonly string[],
  where: PathSegment[],
  add: AddProblem,
): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const guess = closest(key, [...known]);
    add(where, `unknown key${guess ? ` (did you mean "${guess}"?)` : ''}; expected one of ${known.join(', ')}`, key);
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
