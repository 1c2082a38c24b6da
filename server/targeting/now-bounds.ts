// The instants at which an expression that reads `now` can change its value, so an answer can be kept until the first.
import { serialize } from '@marcbachmann/cel-js';
import { isNode, namesVariable, type Node } from './cel-ast.js';

const ORDERINGS = new Set(['<', '<=', '>', '>=']);

const namesNow = (node: unknown): boolean => namesVariable(node, 'now');

/**
 * The side of an ordering that holds `now`, solved for it: `now - X < Y` holds exactly while `now < Y + X`, so it
 * changes only when the clock passes `Y + X`. Returns that instant as an expression, or undefined when `now` sits in
 * the side in a way this does not solve (`now` twice, under a function, inside a list).
 */
function solve(side: unknown, other: Node): Node | undefined {
  if (!isNode(side)) return undefined;
  if (side.op === 'id' && side.args === 'now') return other;
  if ((side.op !== '-' && side.op !== '+') || !Array.isArray(side.args) || side.args.length !== 2) return undefined;
  const [left, right] = side.args as [Node, Node];
  const inLeft = namesNow(left);
  if (inLeft === namesNow(right)) return undefined;
  if (side.op === '+') return inLeft ? solve(left, op('-', other, right)) : solve(right, op('-', other, left));
  // A - now OP other: now changes the side's value at A - other.
  return inLeft ? solve(left, op('+', other, right)) : solve(right, op('-', left, other));
}

const op = (name: string, left: Node, right: Node): Node => ({ op: name, args: [left, right] });

/** The variables every read has (the CEL context's own; `now` is solved away). */
const READ_VARIABLES = new Set(['user', 'group', 'flows']);

/** Whether every variable the parsed expression names is one of `names`. */
function namesOnly(node: unknown, names: ReadonlySet<string>): boolean {
  if (Array.isArray(node)) return node.every((child) => namesOnly(child, names));
  if (!isNode(node)) return true;
  if (node.op === 'id') return typeof node.args === 'string' && names.has(node.args);
  return namesOnly(node.args, names);
}

/**
 * The instants (as CEL source, to evaluate against a read's context) at which the expression's value can change as
 * the clock moves, with the rest of the read unchanged; [] for an expression that does not read `now`. Every use of
 * `now` must be one side of an ordering (`<`, `<=`, `>`, `>=`), alone or plus or minus terms that do not read it:
 * `user.createdAt < now - duration('24h')`, `now - user.lastEventAt('x') > duration('720h')`, and the instant may
 * name only the read's variables. Any other use (an equality, a method on it, an argument, inside a macro over a
 * list) gives undefined: the expression's value may change at any time.
 *
 * An instant that fails to evaluate for a read (a property the user lacks, a time of the wrong type) marks no
 * change: its operands fail the same way, or their types cannot be ordered against a time, so the ordering fails
 * (or is never reached) whatever the clock says.
 */
export function nowChangeInstants(ast: unknown): string[] | undefined {
  const instants: string[] = [];
  let solved = true;
  const walk = (node: unknown): void => {
    if (!solved) return;
    if (Array.isArray(node)) return node.forEach(walk);
    if (!isNode(node)) return;
    if (node.op === 'id') {
      // Reached only outside an ordering that was solved.
      if (node.args === 'now') solved = false;
      return;
    }
    if (ORDERINGS.has(node.op) && Array.isArray(node.args) && node.args.length === 2) {
      const [left, right] = node.args as [unknown, unknown];
      const [inLeft, inRight] = [namesNow(left), namesNow(right)];
      if (inLeft !== inRight && isNode(left) && isNode(right)) {
        const instant = inLeft ? solve(left, right) : solve(right, left);
        // An instant is evaluated against a read's variables alone: one that names a macro's (`x` in
        // `list.exists(x, now > x)`) has no value outside its macro.
        if (!instant || !namesOnly(instant, READ_VARIABLES)) solved = false;
        else instants.push(serialize(instant as never));
        // The other side reads no `now`, but may hold orderings that do not either; nothing more to find there.
        return;
      }
    }
    walk(node.args);
  };
  walk(ast);
  return solved ? [...new Set(instants)] : undefined;
}
