// Which names of `user.events` and `group.events` an expression reads, so a read loads those counts and not every name an entity has.
import type { EventScope } from './event-window-calls.js';
import { isNode, literalString, type Node } from './cel-ast.js';

/** The names of one scope's `events` that expressions read: a list, or `null` when some expression may read any. */
export interface EventNameSet {
  names: string[] | null;
  /** Names the set, so counts loaded for another set (an older catalog) are never read as this one's. */
  key: string;
}

/** What one expression reads of each scope's `events`: named entries, or any (`all`). */
export interface EventNameUse {
  names: Set<string>;
  all: boolean;
}

/** The field a node selects from `args[0]`: `x.name` or `x['name']`; undefined for anything else. */
function selected(node: Node | undefined, from: Node): string | undefined {
  if (!node || !Array.isArray(node.args) || node.args[0] !== from) return undefined;
  if (node.op === '.' && typeof node.args[1] === 'string') return node.args[1];
  if (node.op === '[]') return literalString(node.args[1]);
  return undefined;
}

/**
 * What a parsed expression reads of `user.events` and `group.events`. Every way to an entity's counts starts at
 * the variable `user` or `group`, so each of those is looked at where it stands: `user.properties.plan`,
 * `user.eventCount(…)` read no counts; `user.events.x`, `user.events['x']`, `has(user.events.x)` and
 * `'x' in user.events` read the count of x; any other use (`size(user.events)`, `user.events[k]`, `[user][0]`, a
 * macro variable named user) may read any count, and the read then loads them all, as it did before.
 */
export function eventNameUses(ast: unknown): Record<EventScope, EventNameUse> {
  const uses: Record<EventScope, EventNameUse> = {
    user: { names: new Set(), all: false },
    group: { names: new Set(), all: false },
  };
  // The parents of the node being looked at, nearest last; bounded by the parser's limits on depth.
  const parents: Node[] = [];
  const visit = (node: Node): void => {
    if (node.op === 'id' && (node.args === 'user' || node.args === 'group')) use(node, uses[node.args]);
    parents.push(node);
    walk(node.args);
    parents.pop();
  };
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isNode(value)) visit(value);
  };
  const use = (entity: Node, found: EventNameUse): void => {
    const parent = parents.at(-1);
    const field = selected(parent, entity);
    if (field !== undefined && field !== 'events') return;
    if (parent?.op === 'rcall' && Array.isArray(parent.args) && parent.args[1] === entity) {
      if (parent.args[0] === 'eventCount' || parent.args[0] === 'lastEventAt') return;
    }
    if (field === 'events') {
      const events = parent!;
      const outer = parents.at(-2);
      const name =
        selected(outer, events) ??
        (outer?.op === 'in' && Array.isArray(outer.args) && outer.args[1] === events
          ? literalString(outer.args[0])
          : undefined);
      if (name !== undefined) {
        found.names.add(name);
        return;
      }
    }
    found.all = true;
  };
  walk(ast);
  return uses;
}

/** The set of each scope that `uses` (one per expression) read. */
export function eventNameSets(uses: Iterable<Record<EventScope, EventNameUse>>): Record<EventScope, EventNameSet> {
  const found = { user: { names: new Set<string>(), all: false }, group: { names: new Set<string>(), all: false } };
  for (const use of uses) {
    for (const scope of ['user', 'group'] as const) {
      if (use[scope].all) found[scope].all = true;
      for (const name of use[scope].names) found[scope].names.add(name);
    }
  }
  const setOf = ({ names, all }: EventNameUse): EventNameSet => {
    const list = all ? null : [...names].sort();
    return { names: list, key: JSON.stringify(list) };
  };
  return { user: setOf(found.user), group: setOf(found.group) };
}
