// Frigade's targeting expressions in our CEL: each parsed form written over `user`, `group`, `flows` and `now`, or the reason it has no CEL form.
import { parseFrigadeTargeting, type Expression, type Operand } from './frigade-syntax.js';
import { Unmapped } from './frigade-tokens.js';

/** Why an expression has no CEL form: the message and the 1-based column of the part at fault. */
export interface TargetingProblem {
  message: string;
  column: number;
}

export type TargetingTranslation = { cel: string } | { problem: TargetingProblem };

/** CEL, built as a small tree so negation and parentheses come out as a person would write them. */
type Cel =
  | { t: 'and' | 'or'; parts: Cel[] }
  | { t: 'not'; x: Cel }
  | { t: 'rel'; op: string; a: string; b: string }
  | { t: 'atom'; text: string };

const and = (...parts: Cel[]): Cel => ({ t: 'and', parts: parts.flatMap((p) => (p.t === 'and' ? p.parts : [p])) });
const or = (...parts: Cel[]): Cel => ({ t: 'or', parts: parts.flatMap((p) => (p.t === 'or' ? p.parts : [p])) });
const rel = (a: string, op: string, b: string): Cel => ({ t: 'rel', op, a, b });
const atom = (text: string): Cel => ({ t: 'atom', text });

const NEGATED: Record<string, string> = { '==': '!=', '!=': '==' };

function not(cel: Cel): Cel {
  if (cel.t === 'and') return or(...cel.parts.map(not));
  if (cel.t === 'or') return and(...cel.parts.map(not));
  if (cel.t === 'not') return cel.x;
  if (cel.t === 'rel' && NEGATED[cel.op]) return rel(cel.a, NEGATED[cel.op], cel.b);
  return { t: 'not', x: cel };
}

/** Precedence: || 1, && 2, relations 3, `!` and atoms 4. */
function print(cel: Cel): { text: string; level: number } {
  const wrap = (inner: Cel, level: number) => {
    const printed = print(inner);
    return printed.level < level ? `(${printed.text})` : printed.text;
  };
  switch (cel.t) {
    case 'or':
      // An && group inside || is bracketed, though CEL does not need it, so a reader need not know the precedence.
      return { text: cel.parts.map((p) => wrap(p, 3)).join(' || '), level: 1 };
    case 'and':
      return { text: cel.parts.map((p) => wrap(p, 2)).join(' && '), level: 2 };
    case 'rel':
      return { text: `${cel.a} ${cel.op} ${cel.b}`, level: 3 };
    case 'not':
      return { text: `!${wrap(cel.x, 4)}`, level: 4 };
    case 'atom':
      return { text: cel.text, level: 4 };
  }
}

const CEL_RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

/** `user.properties.plan` and `has(…)`, or the index form for a key that is no CEL name (`user.properties['job-title']`). */
function entry(map: string, key: string): { value: string; present: Cel } {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && !CEL_RESERVED.has(key))
    return { value: `${map}.${key}`, present: atom(`has(${map}.${key})`) };
  return { value: `${map}[${quote(key)}]`, present: rel(quote(key), 'in', map) };
}

const DATE = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** A date as Frigade writes one ('2023-03-01 00:00:00', '2023-03-01'), as RFC 3339, read as UTC when it names no zone. */
function isoDate(text: string): string | undefined {
  const match = DATE.exec(text.trim());
  if (!match) return undefined;
  const [, day, minutes = '00:00', seconds = ':00', zone = 'Z'] = match;
  const iso = `${day}T${minutes}${seconds}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`;
  return Number.isNaN(Date.parse(iso)) ? undefined : iso;
}

function duration(ms: number): string {
  const abs = Math.abs(ms);
  const text =
    abs % 3_600_000 === 0 ? `${abs / 3_600_000}h` : abs % 1000 === 0 ? `${abs / 1000}s` : `${Math.round(abs)}ms`;
  return `duration('${text}')`;
}

function timeCel(operand: Operand & { kind: 'time' }): string {
  if (operand.offsetMs === 0) return 'now';
  return `now ${operand.offsetMs < 0 ? '-' : '+'} ${duration(operand.offsetMs)}`;
}

function literal(operand: Operand): string | undefined {
  switch (operand.kind) {
    case 'string':
      return quote(operand.value);
    case 'number':
      return String(operand.value);
    case 'boolean':
      return String(operand.value);
    case 'null':
      return 'null';
    default:
      return undefined;
  }
}

const isConstant = (operand: Operand) => ['string', 'number', 'boolean', 'null', 'time'].includes(operand.kind);
const FLIPPED: Record<string, string> = { '>': '<', '<': '>', '>=': '<=', '<=': '>=', '==': '==', '!=': '!=' };
const ORDERING = new Set(['>', '<', '>=', '<=']);
const NUMERIC_TEXT = /^-?[0-9]+(\.[0-9]+)?$/;

/** The operand's name as written, for messages. */
function named(operand: Operand): string {
  switch (operand.kind) {
    case 'property':
      return `${operand.scope}.property('${operand.key}')`;
    case 'eventCount':
      return `${operand.scope}.event('${operand.event}').count`;
    case 'flow':
      return `user.flow('${operand.slug}')`;
    case 'flowStep':
      return `user.flowStep('${operand.slug}', '${operand.step}')`;
    case 'flowStepData':
      return `user.flowStepData('${operand.slug}', '${operand.step}', '${operand.field}')`;
    case 'propertyContains':
      return `${operand.scope}.propertyContains('${operand.key}', '${operand.needle}')`;
    case 'isGuest':
      return 'user.isGuest()';
    case 'memberOfGroup':
      return `user.memberOfGroup(${operand.groups === undefined ? '' : `'${operand.groups}'`})`;
    case 'time':
      return 'now()';
    default:
      return literal(operand) ?? operand.kind;
  }
}

/** A property compared with a number as Frigade compares: its ordering operators read both sides as numbers. */
function orderedValue(value: string, right: Operand): { value: string; right: string } | undefined {
  if (right.kind === 'number') return { value, right: String(right.value) };
  if (right.kind === 'string' && NUMERIC_TEXT.test(right.value))
    return { value: `double(${value})`, right: String(Number(right.value)) };
  return undefined;
}

function translateCompare(node: Expression & { kind: 'compare' }): Cel {
  let { left, right, op } = node;
  if (op.startsWith('!') && op !== '!=') return not(translateCompare({ ...node, op: op.slice(1) }));
  if (op === '!=') return not(translateCompare({ ...node, op: '==' }));
  if (isConstant(left) && !isConstant(right)) {
    if (!FLIPPED[op]) throw new Unmapped(`"${op}" needs the value it reads on its left`, node.at);
    [left, right, op] = [right, left, FLIPPED[op]];
  }
  if (left.kind === 'unmapped') throw new Unmapped(left.reason, left.at);
  if (right.kind === 'unmapped') throw new Unmapped(right.reason, right.at);
  const cannot = (why = '') => new Unmapped(`no equivalent for ${named(left)} ${op} ${named(right)}${why}`, node.at);

  switch (left.kind) {
    case 'property': {
      const { value, present } = entry(`${left.scope}.properties`, left.key);
      if (right.kind === 'property') {
        const other = entry(`${right.scope}.properties`, right.key);
        if (op === 'contains' || op === 'startsWith' || op === 'endsWith' || op === 'matches' || op === 'isIn')
          throw cannot();
        return and(present, other.present, rel(value, op, other.value));
      }
      if (right.kind === 'null') {
        if (op !== '==') throw cannot(': null is compared with == or !=');
        return or(not(present), rel(value, '==', 'null'));
      }
      if (right.kind === 'time') {
        if (op === '==' || !ORDERING.has(op)) throw cannot(': a time is compared with <, <=, > or >=');
        return and(present, rel(`timestamp(${value})`, op, timeCel(right)));
      }
      if (right.kind === 'string') {
        const iso = isoDate(right.value);
        if (iso && (op === '==' || ORDERING.has(op)))
          return and(present, rel(`timestamp(${value})`, op, `timestamp('${iso}')`));
        if (op === '==') return and(present, rel(value, '==', quote(right.value)));
        if (op === 'contains')
          return and(present, atom(`${value}.lowerAscii().contains(${quote(lowerAscii(right.value))})`));
        if (op === 'startsWith' || op === 'endsWith')
          return and(present, atom(`${value}.${op}(${quote(right.value)})`));
        // Frigade's matches is RE2 over the whole value (its startsWith is written '^x.*'); CEL's finds a match anywhere.
        if (op === 'matches') return and(present, atom(`${value}.matches(${quote(`^(?:${right.value})$`)})`));
        if (op === 'isIn') return and(present, rel(value, 'in', `[${splitList(right.value).map(quote).join(', ')}]`));
      }
      if (right.kind === 'number' || right.kind === 'boolean') {
        if (op === '==') return and(present, rel(value, '==', literal(right)!));
      }
      if (ORDERING.has(op)) {
        const ordered = orderedValue(value, right);
        if (ordered) return and(present, rel(ordered.value, op, ordered.right));
        throw cannot(': Frigade reads these operators on numbers and times only');
      }
      throw cannot();
    }
    case 'eventCount': {
      const { value, present } = entry(`${left.scope}.events`, left.event);
      const count =
        right.kind === 'number'
          ? right.value
          : right.kind === 'string' && NUMERIC_TEXT.test(right.value)
            ? Number(right.value)
            : undefined;
      if (count === undefined || !(op === '==' || ORDERING.has(op)))
        throw cannot(': an event count is compared with a number');
      // No such event is a count of 0: where 0 passes, a user without the event passes too.
      const zeroPasses =
        op === '=='
          ? count === 0
          : op === '>'
            ? 0 > count
            : op === '<'
              ? 0 < count
              : op === '>='
                ? 0 >= count
                : 0 <= count;
      const comparison = rel(value, op, String(count));
      return zeroPasses ? or(not(present), comparison) : and(present, comparison);
    }
    case 'flow':
    case 'flowStep': {
      if (op !== '==' || right.kind !== 'string')
        throw cannot(': a status is compared with == or != and a status name');
      const flow = `flows[${quote(left.slug)}]`;
      return rel(
        left.kind === 'flow' ? `${flow}.status` : `${flow}.steps[${quote(left.step)}].status`,
        '==',
        quote(right.value),
      );
    }
    case 'flowStepData': {
      const value = `flows[${quote(left.slug)}].steps[${quote(left.step)}].data[${quote(left.field)}]`;
      if (op === '==' && literal(right) !== undefined) return rel(value, '==', literal(right)!);
      const ordered = ORDERING.has(op) ? orderedValue(value, right) : undefined;
      if (ordered) return rel(ordered.value, op, ordered.right);
      throw cannot();
    }
    case 'isGuest':
    case 'propertyContains': {
      if (op !== '==' || right.kind !== 'boolean') throw cannot(': compare it with true or false');
      const truth = translateBare(left);
      return right.value ? truth : not(truth);
    }
    case 'memberOfGroup': {
      if (left.groups !== undefined) {
        if (op !== '==' || right.kind !== 'boolean') throw cannot(': compare it with true or false');
        return right.value ? memberOf(left.groups) : not(memberOf(left.groups));
      }
      if ((op !== '==' && op !== 'isIn') || right.kind !== 'string')
        throw cannot(": compare it with == or != and group IDs, such as 'a,b'");
      return memberOf(right.value);
    }
    default:
      throw cannot();
  }
}

function splitList(list: string): string[] {
  return list.split(',').map((item) => item.trim());
}

function memberOf(list: string): Cel {
  return or(...splitList(list).map((id) => rel(quote(id), 'in', 'user.groups')));
}

function lowerAscii(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** A value on its own: Frigade reads it as `== true`. */
function translateBare(operand: Operand): Cel {
  switch (operand.kind) {
    case 'isGuest':
      return atom('user.isGuest');
    case 'boolean':
      return atom(String(operand.value));
    case 'memberOfGroup':
      if (operand.groups !== undefined) return memberOf(operand.groups);
      break;
    case 'propertyContains': {
      const { value, present } = entry(`${operand.scope}.properties`, operand.key);
      return and(present, atom(`${value}.lowerAscii().contains(${quote(lowerAscii(operand.needle))})`));
    }
    case 'property': {
      const { value, present } = entry(`${operand.scope}.properties`, operand.key);
      return and(present, rel(value, '==', 'true'));
    }
    case 'unmapped':
      throw new Unmapped(operand.reason, operand.at);
  }
  throw new Unmapped(`${named(operand)} on its own is no condition: compare it with a value`, operand.at);
}

function translateWithin(node: Expression & { kind: 'within' }): Cel {
  const { left } = node;
  if (left.kind === 'property') {
    const { value, present } = entry(`${left.scope}.properties`, left.key);
    // within: after now minus the window; !within: before it. A user without the property passes neither.
    return and(present, rel(`timestamp(${value})`, node.negated ? '<' : '>', `now - ${duration(node.ms)}`));
  }
  if (left.kind === 'flow') {
    throw new Unmapped(
      `${node.negated ? '!within' : 'within'} on ${named(left)} has no equivalent: the CEL context has each flow's status, not when it was completed or skipped`,
      node.at,
    );
  }
  if (left.kind === 'unmapped') throw new Unmapped(left.reason, left.at);
  throw new Unmapped(
    `within reads a property that holds a time (user.property('signedUpAt') within 7d), not ${named(left)}`,
    node.at,
  );
}

function translate(node: Expression): Cel {
  switch (node.kind) {
    case 'and':
      return and(translate(node.left), translate(node.right));
    case 'or':
      return or(translate(node.left), translate(node.right));
    case 'compare':
      return translateCompare(node);
    case 'within':
      return translateWithin(node);
    case 'bare':
      return translateBare(node.operand);
  }
}

/**
 * Translates one of Frigade's targeting expressions into CEL over `user`, `group`, `flows` and `now`. An expression
 * of one character or none is no targeting, as Frigade reads it: the answer is `{ cel: '' }`, everyone.
 */
export function frigadeTargetingToCel(expression: string): TargetingTranslation {
  // Frigade strips line breaks before reading; each becomes a space, so columns stay those of the text.
  const source = expression.replace(/[\r\n]/g, ' ');
  if (source.trim().length <= 1) return { cel: '' };
  try {
    return { cel: print(translate(parseFrigadeTargeting(source))).text };
  } catch (error) {
    if (error instanceof Unmapped) return { problem: { message: error.message, column: error.column } };
    throw error;
  }
}
