// Refuses JSON that PostgreSQL cannot store or that is nested past reason, before any handler sees it.
import { HttpProblem } from './problem.js';

/** Deepest nesting of objects and arrays accepted in a body. */
export const MAX_JSON_DEPTH = 32;

// U+0000 cannot be stored in PostgreSQL text or jsonb; unpaired surrogates are not valid Unicode.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Throws a 400 problem naming the first field that is too deep or holds an unstorable string. */
export function checkJsonBody(body: unknown, maxDepth = MAX_JSON_DEPTH): void {
  // Iterative walk: a hostile body must not be able to exhaust the call stack.
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: body, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) throw unstorable(path || 'body');
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= maxDepth) {
      throw new HttpProblem(
        400,
        `body field "${path || 'body'}" is nested deeper than ${maxDepth} levels`,
        path || 'body',
      );
    }
    const entries: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, i) => [String(i), item])
      : Object.entries(value);
    for (const [key, item] of entries) {
      const itemPath = path ? `${path}.${key}` : key;
      if (!Array.isArray(value) && UNSTORABLE.test(key)) throw unstorable(itemPath);
      stack.push({ value: item, path: itemPath, depth: depth + 1 });
    }
  }
}

function unstorable(field: string): HttpProblem {
  return new HttpProblem(
    400,
    `body field "${field}" holds a NUL character or an unpaired surrogate, which cannot be stored`,
    field,
  );
}

/** The dotted path of the first string or key in `value` that cannot be stored as text ('' for `value` itself), if any. */
export function findUnstorableText(value: unknown): string | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value === 'string') {
      if (UNSTORABLE.test(item.value)) return item.path;
      continue;
    }
    if (typeof item.value !== 'object' || item.value === null) continue;
    for (const [key, child] of Object.entries(item.value)) {
      const path = item.path ? `${item.path}.${key}` : key;
      if (!Array.isArray(item.value) && UNSTORABLE.test(key)) return path;
      stack.push({ value: child, path });
    }
  }
  return undefined;
}

/** True when a query or header value can be stored as text. */
export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}
