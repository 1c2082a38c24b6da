// The parts of a CEL expression the explanation shows: its top-level clauses (of `||`, else of `&&`), and each side of a comparison.

/** Where `text` has `token` outside strings and brackets, at bracket depth 0. */
function topLevelIndexes(text: string, tokens: readonly string[]): Array<[number, string]> {
  const found: Array<[number, string]> = [];
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote) {
      if (char === '\\') i++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === '"' || char === "'") quote = char;
    else if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char)) depth--;
    else if (depth === 0) {
      const token = tokens.find((candidate) => text.startsWith(candidate, i));
      if (token) {
        found.push([i, token]);
        i += token.length - 1;
      }
    }
  }
  return found;
}

/** `text` without brackets that enclose all of it: `(a && b)` is `a && b`. */
function unwrapped(text: string): string {
  let inner = text.trim();
  while (inner.startsWith('(') && inner.endsWith(')')) {
    const body = inner.slice(1, -1);
    // The first bracket closes only at the end when the body has no closing bracket unmatched at depth 0.
    let depth = 0;
    let balanced = true;
    for (const char of body.replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g, '')) {
      if (char === '(') depth++;
      else if (char === ')' && --depth < 0) {
        balanced = false;
        break;
      }
    }
    if (!balanced) break;
    inner = body.trim();
  }
  return inner;
}

function splitAt(text: string, at: Array<[number, string]>): string[] {
  const parts: string[] = [];
  let from = 0;
  for (const [index, token] of at) {
    parts.push(text.slice(from, index).trim());
    from = index + token.length;
  }
  parts.push(text.slice(from).trim());
  return parts;
}

/**
 * The top-level clauses of an expression: the operands of its `||` (which binds loosest), else of its `&&`, else the
 * expression itself, with the operator that joins them.
 */
export function topLevelClauses(source: string): { operator: '||' | '&&' | null; clauses: string[] } {
  const text = unwrapped(source);
  for (const operator of ['||', '&&'] as const) {
    const at = topLevelIndexes(text, [operator]);
    if (at.length) return { operator, clauses: splitAt(text, at) };
  }
  return { operator: null, clauses: [text] };
}

const COMPARISONS = ['==', '!=', '>=', '<=', '>', '<', ' in '];

/** Both sides of a comparison clause (`user.properties.plan == 'pro'`); undefined for any other clause. */
export function comparisonOperands(clause: string): [string, string] | undefined {
  const text = unwrapped(clause);
  const at = topLevelIndexes(text, COMPARISONS);
  if (at.length !== 1) return undefined;
  const [left, right] = splitAt(text, at);
  return left && right ? [left, right] : undefined;
}
