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
