// The nodes of cel-js's parsed expressions, as the walks over them (event windows, event names) read them.

export interface Node {
  op: string;
  args: unknown;
}

export const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as Node).op === 'string';

/** A string literal's text; undefined for any other node. */
export const literalString = (node: unknown): string | undefined =>
  isNode(node) && node.op === 'value' && typeof node.args === 'string' ? node.args : undefined;

/** Whether the parsed expression (or any part of it) names the variable `name`. */
export function namesVariable(node: unknown, name: string): boolean {
  if (Array.isArray(node)) return node.some((child) => namesVariable(child, name));
  if (!isNode(node)) return false;
  if (node.op === 'id') return node.args === name;
  return namesVariable(node.args, name);
}
