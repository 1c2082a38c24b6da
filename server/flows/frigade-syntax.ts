// Frigade's targeting syntax: a recursive-descent parser over the tokens (frigade-tokens.ts), from the forms its documentation describes.
//
// Frigade's evaluator is not published, so the grammar follows its targeting page (functions, operators, examples) and
// the notes its own repositories keep on the evaluator: `AND`/`OR` beside `&&`/`||`, `===`, `isIn`, `isSet`,
// `matches`, the units of `within`. A form it does not know is an Unmapped error with its column, never a guess.

import { ACTION_TYPES } from '../../src/api/wire.js';
import { COMPARING_WORDS, tokenize, Unmapped, type Token } from './frigade-tokens.js';

export type Scope = 'user' | 'group';

/** A value an expression compares: one of Frigade's functions, a literal, or a time (now, a date, and arithmetic on them). */
export type Operand = { at: number } & (
  | { kind: 'property'; scope: Scope; key: string }
  | { kind: 'propertyContains'; scope: Scope; key: string; needle: string }
  | { kind: 'eventCount'; scope: Scope; event: string }
  | { kind: 'flow'; slug: string }
  | { kind: 'flowStep'; slug: string; step: string }
  | { kind: 'flowStepData'; slug: string; step: string; field: string }
  | { kind: 'isGuest' }
  | { kind: 'memberOfGroup'; groups?: string }
  | { kind: 'unmapped'; reason: string }
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' }
  /** `now()`, `new Date()` or `Date.now()`, plus `offsetMs`. */
  | { kind: 'time'; offsetMs: number }
);

export type Expression =
  | { kind: 'and' | 'or'; left: Expression; right: Expression }
  | { kind: 'compare'; left: Operand; op: string; right: Operand; at: number }
  | { kind: 'within'; left: Operand; negated: boolean; ms: number; at: number }
  | { kind: 'bare'; operand: Operand };

// ---------------------------------------------------------------------------------------------------------------
// Parser: or := and (('||' | 'OR') and)*;  and := term (('&&' | 'AND') term)*;  term := '(' or ')' | comparison

const COMPARISONS = new Set(['==', '===', '!=', '!==', '>', '<', '>=', '<=']);
/** `within` units, as Frigade's evaluator reads them: `i` is minutes and `m` is months of 30 days. */
const UNIT_MS: Record<string, number> = {
  s: 1000,
  i: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
  m: 2_592_000_000,
};

class Parser {
  #tokens: Token[];
  #next = 0;

  constructor(source: string) {
    this.#tokens = tokenize(source);
  }

  parse(): Expression {
    const expression = this.#or();
    const token = this.#peek();
    if (token.type !== 'end') throw new Unmapped(`expected && or || before ${describe(token)}`, token.at);
    return expression;
  }

  #peek(): Token {
    return this.#tokens[this.#next];
  }

  #take(): Token {
    return this.#tokens[this.#next++];
  }

  #isOp(value: string): boolean {
    const token = this.#peek();
    return token.type === 'op' && token.value === value;
  }

  #expect(value: string): void {
    const token = this.#take();
    if (token.type !== 'op' || token.value !== value)
      throw new Unmapped(`expected "${value}" but found ${describe(token)}`, token.at);
  }

  #isWord(word: string): boolean {
    const token = this.#peek();
    return token.type === 'name' && token.value === word;
  }

  #or(): Expression {
    let left = this.#and();
    while (this.#isOp('||') || this.#isWord('OR')) {
      this.#take();
      left = { kind: 'or', left, right: this.#and() };
    }
    return left;
  }

  #and(): Expression {
    let left = this.#term();
    while (this.#isOp('&&') || this.#isWord('AND')) {
      this.#take();
      left = { kind: 'and', left, right: this.#term() };
    }
    return left;
  }

  #term(): Expression {
    if (this.#isOp('(')) {
      this.#take();
      const inner = this.#or();
      this.#expect(')');
      return inner;
    }
    const left = this.#sum();
    const token = this.#peek();
    const operator = token.type === 'op' || token.type === 'name' ? token.value : '';
    if (COMPARISONS.has(operator) || COMPARING_WORDS.has(operator.replace(/^!/, ''))) {
      this.#take();
      return { kind: 'compare', left, op: operator.replace(/^(==|!=)=$/, '$1'), right: this.#sum(), at: token.at };
    }
    if (operator === 'within' || operator === '!within') {
      this.#take();
      const amount = this.#take();
      const match = amount.type === 'number' ? /^([0-9]+(?:\.[0-9]+)?)([A-Za-z])$/.exec(amount.text) : null;
      const unit = match ? UNIT_MS[match[2]] : undefined;
      if (!match || unit === undefined) {
        throw new Unmapped(
          `${operator} takes a number and a unit: s, i (minutes), h, d, w or m (months of 30 days), such as 7d; found ${describe(amount)}`,
          amount.at,
        );
      }
      return { kind: 'within', left, negated: operator === '!within', ms: Number(match[1]) * unit, at: token.at };
    }
    if (operator === 'isSet' || operator === 'isNotSet') {
      this.#take();
      const value = this.#take();
      if (value.type !== 'name' || (value.value !== 'true' && value.value !== 'false'))
        throw new Unmapped(`${operator} takes true or false`, value.at);
      // `isSet true` is Frigade's `!= null`, `isNotSet true` its `== null`.
      const set = (operator === 'isSet') === (value.value === 'true');
      return { kind: 'compare', left, op: set ? '!=' : '==', right: { kind: 'null', at: value.at }, at: token.at };
    }
    return { kind: 'bare', operand: left };
  }

  /** Arithmetic on numbers and times: `new Date() - 86400000 * 30`. */
  #sum(): Operand {
    let left = this.#product();
    while (this.#isOp('+') || this.#isOp('-')) {
      const op = this.#take() as Token & { type: 'op' };
      left = arithmetic(left, op.value, this.#product(), op.at);
    }
    return left;
  }

  #product(): Operand {
    let left = this.#operand();
    while (this.#isOp('*') || this.#isOp('/')) {
      const op = this.#take() as Token & { type: 'op' };
      left = arithmetic(left, op.value, this.#operand(), op.at);
    }
    return left;
  }

  #operand(): Operand {
    const token = this.#take();
    const at = token.at;
    if (token.type === 'string') return { kind: 'string', value: token.value, at };
    if (token.type === 'number') {
      if (!/^[0-9]+(\.[0-9]+)?$/.test(token.text))
        throw new Unmapped(`"${token.text}" is not a number (a duration such as 7d follows within)`, at);
      return { kind: 'number', value: Number(token.text), at };
    }
    if (token.type === 'op' && token.value === '(') {
      const inner = this.#sum();
      this.#expect(')');
      return inner;
    }
    if (token.type === 'op' && token.value === '-' && this.#peek().type === 'number') {
      const number = this.#operand();
      return { kind: 'number', value: -(number as { value: number }).value, at };
    }
    if (token.type !== 'name') throw new Unmapped(`expected a value but found ${describe(token)}`, at);
    if (token.value === 'true' || token.value === 'false')
      return { kind: 'boolean', value: token.value === 'true', at };
    if (token.value === 'null') return { kind: 'null', at };
    if (token.value === 'new') {
      const name = this.#take();
      if (name.type !== 'name' || name.value !== 'Date') throw new Unmapped('expected "new Date()"', name.at);
      this.#expect('(');
      this.#expect(')');
      return { kind: 'time', offsetMs: 0, at };
    }
    return this.#call(token.value, at);
  }

  /** A dotted name with calls: `user.property('plan')`, `user.event('login').count`, `user.properties.plan`. */
  #call(first: string, at: number): Operand {
    const parts: Array<{ name: string; args?: string[] }> = [{ name: first }];
    // Each turn takes at least one token; the end token stops it.
    for (;;) {
      if (this.#isOp('(')) {
        this.#take();
        const args: string[] = [];
        while (!this.#isOp(')')) {
          const arg = this.#take();
          if (arg.type !== 'string')
            throw new Unmapped(`expected a quoted name as an argument but found ${describe(arg)}`, arg.at);
          args.push(arg.value);
          if (!this.#isOp(')')) this.#expect(',');
        }
        this.#take();
        parts.at(-1)!.args = args;
      } else if (this.#isOp('.')) {
        this.#take();
        const name = this.#take();
        if (name.type !== 'name') throw new Unmapped(`expected a name after "." but found ${describe(name)}`, name.at);
        parts.push({ name: name.value });
      } else {
        return resolveCall(parts, at);
      }
    }
  }
}

function describe(token: Token): string {
  if (token.type === 'end') return 'the end';
  if (token.type === 'string') return `'${token.value}'`;
  return `"${token.type === 'number' ? token.text : token.value}" (column ${token.at})`;
}

function arithmetic(left: Operand, op: string, right: Operand, at: number): Operand {
  if (left.kind === 'number' && right.kind === 'number') {
    const value =
      op === '+'
        ? left.value + right.value
        : op === '-'
          ? left.value - right.value
          : op === '*'
            ? left.value * right.value
            : left.value / right.value;
    return { kind: 'number', value, at: left.at };
  }
  // A time plus or minus milliseconds, as in JavaScript: `new Date() - 86400000 * 30`.
  if (left.kind === 'time' && right.kind === 'number' && (op === '+' || op === '-')) {
    return { kind: 'time', offsetMs: left.offsetMs + (op === '+' ? right.value : -right.value), at: left.at };
  }
  throw new Unmapped(`arithmetic "${op}" is read only on numbers, and to add or take milliseconds from now()`, at);
}

/** What a dotted name means in Frigade's targeting, by its documented forms. */
function resolveCall(parts: Array<{ name: string; args?: string[] }>, at: number): Operand {
  const text = parts
    .map((part) => (part.args ? `${part.name}(${part.args.map((a) => `'${a}'`).join(', ')})` : part.name))
    .join('.');
  const [head, fn, ...rest] = parts;
  const arity = (part: { args?: string[] } | undefined, count: number) => part?.args?.length === count;
  const unknown = () =>
    new Unmapped(
      `"${text}" is not one of Frigade's targeting forms (user.property, user.event, user.flow, group.property, …)`,
      at,
    );
  // A state unquoted, as Frigade's dashboard exports write it: `user.flow('flow_X') == COMPLETED_FLOW`.
  if (parts.length === 1 && !head.args && (ACTION_TYPES as readonly string[]).includes(head.name))
    return { kind: 'string', value: head.name, at };
  if (parts.length === 1 && !head.args) throw unknown();
  if (
    (head.name === 'now' && arity(head, 0) && parts.length === 1) ||
    (head.name === 'Date' && fn?.name === 'now' && arity(fn, 0) && !rest.length)
  ) {
    return { kind: 'time', offsetMs: 0, at };
  }
  // organization is Frigade's older name for group.
  const scope: Scope | undefined =
    head.name === 'user' ? 'user' : head.name === 'group' || head.name === 'organization' ? 'group' : undefined;
  if (!scope || head.args || !fn) throw unknown();
  const only = rest.length === 0;
  if (fn.name === 'properties' && !fn.args && rest.length === 1 && !rest[0].args)
    return { kind: 'property', scope, key: rest[0].name, at };
  if (fn.name === 'property' && arity(fn, 1) && only) return { kind: 'property', scope, key: fn.args![0], at };
  if (fn.name === 'propertyContains' && arity(fn, 2) && only)
    return { kind: 'propertyContains', scope, key: fn.args![0], needle: fn.args![1], at };
  if (fn.name === 'event' && arity(fn, 1) && rest.length === 1 && rest[0].name === 'count' && !rest[0].args)
    return { kind: 'eventCount', scope, event: fn.args![0], at };
  if (fn.name === 'eventCount' && arity(fn, 1) && only) return { kind: 'eventCount', scope, event: fn.args![0], at };
  if (scope === 'user' && only) {
    if (fn.name === 'flow' && arity(fn, 1)) return { kind: 'flow', slug: fn.args![0], at };
    if (fn.name === 'flowStep' && arity(fn, 2)) return { kind: 'flowStep', slug: fn.args![0], step: fn.args![1], at };
    if (fn.name === 'flowStepData' && arity(fn, 3))
      return { kind: 'flowStepData', slug: fn.args![0], step: fn.args![1], field: fn.args![2], at };
    if (fn.name === 'isGuest' && arity(fn, 0)) return { kind: 'isGuest', at };
    if (fn.name === 'memberOfGroup' && (arity(fn, 0) || arity(fn, 1)))
      return { kind: 'memberOfGroup', ...(fn.args![0] !== undefined ? { groups: fn.args![0] } : {}), at };
    if (fn.name === 'currentUrl' && arity(fn, 0)) {
      return {
        kind: 'unmapped',
        reason: `${text} has no equivalent: the service does not know the page a user is on (startWhen.page limits where a flow opens)`,
        at,
      };
    }
    if (fn.name === 'daysSinceFlowDone' && arity(fn, 1)) {
      return {
        kind: 'unmapped',
        reason: `${text} has no equivalent: the CEL context has each flow's status, not when it was completed or skipped`,
        at,
      };
    }
    if (fn.name === 'daysSinceNow' && arity(fn, 1)) {
      return {
        kind: 'unmapped',
        reason: `${text} has no equivalent yet: write it with the property as a timestamp, such as now - timestamp(user.properties.${fn.args![0]}) > duration('720h')`,
        at,
      };
    }
  }
  throw unknown();
}

/** Parses one of Frigade's expressions (line breaks already spaces), or throws Unmapped with the column at fault. */
export function parseFrigadeTargeting(source: string): Expression {
  return new Parser(source).parse();
}
