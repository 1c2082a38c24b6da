// Frigade's targeting expressions: a parser for the syntax its documentation describes, and their translation into our CEL.
//
// Frigade's evaluator is not published, so the grammar follows its targeting page (functions, operators, examples) and
// the notes its own repositories keep on the evaluator: `AND`/`OR` beside `&&`/`||`, `===`, `isIn`, `isSet`,
// `matches`, the units of `within`. Whatever has no equivalent here is reported with its column, never guessed.

/** Why an expression has no CEL form: the message and the 1-based column of the part at fault. */
export interface TargetingProblem {
  message: string;
  column: number;
}

export type TargetingTranslation = { cel: string } | { problem: TargetingProblem };

type Scope = 'user' | 'group';

/** A value an expression compares: one of Frigade's functions, a literal, or a time (now, a date, and arithmetic on them). */
type Operand = { at: number } & (
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

type Expression =
  | { kind: 'and' | 'or'; left: Expression; right: Expression }
  | { kind: 'compare'; left: Operand; op: string; right: Operand; at: number }
  | { kind: 'within'; left: Operand; negated: boolean; ms: number; at: number }
  | { kind: 'bare'; operand: Operand };

/** An expression with no CEL form: one that does not parse, or a form with no equivalent here. */
class Unmapped extends Error {
  constructor(
    message: string,
    readonly column: number,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Tokens

type Token = { at: number } & (
  | { type: 'string'; value: string }
  | { type: 'number'; text: string }
  | { type: 'name'; value: string }
  | { type: 'op'; value: string }
  | { type: 'end' }
);

/** Operators written as words that compare two values. A `!` before one negates it (`!contains`). */
const COMPARING_WORDS = new Set(['contains', 'startsWith', 'endsWith', 'isIn', 'matches']);
/** All operators written as words: `within` (and `!within`) takes a duration, `isSet` and `isNotSet` true or false. */
const WORD_OPERATORS = new Set([...COMPARING_WORDS, 'within', 'isSet', 'isNotSet']);
const SYMBOLS = ['===', '!==', '==', '!=', '>=', '<=', '&&', '||', '>', '<', '(', ')', '.', ',', '+', '-', '*', '/'];

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  // The loop moves on by at least one character a turn, or throws.
  while (i < source.length) {
    const char = source[i]!;
    const at = i + 1;
    if (/\s/.test(char)) {
      i++;
    } else if (char === "'" || char === '"') {
      // Frigade turns double quotes into single ones and has no escapes: a string ends at the next quote of its kind.
      const end = source.indexOf(char, i + 1);
      if (end < 0) throw new Unmapped('a string that is not closed', at);
      tokens.push({ type: 'string', value: source.slice(i + 1, end), at });
      i = end + 1;
    } else if (/[0-9]/.test(char)) {
      const text = /^[0-9]+(\.[0-9]+)?[A-Za-z]*/.exec(source.slice(i))![0];
      tokens.push({ type: 'number', text, at });
      i += text.length;
    } else if (/[A-Za-z_$]/.test(char)) {
      const value = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(source.slice(i))![0];
      tokens.push({ type: 'name', value, at });
      i += value.length;
    } else if (char === '!' && /^![A-Za-z]/.test(source.slice(i, i + 2))) {
      const word = /^[A-Za-z]+/.exec(source.slice(i + 1))![0];
      if (!WORD_OPERATORS.has(word) || word === 'isSet' || word === 'isNotSet') {
        throw new Unmapped(`"!${word}": Frigade's targeting has no "!" before a value; negate with != or a negated operator (!contains, !within, !isIn)`, at);
      }
      tokens.push({ type: 'op', value: `!${word}`, at });
      i += word.length + 1;
    } else {
      const symbol = SYMBOLS.find((s) => source.startsWith(s, i));
      if (!symbol) {
        const hint = char === '!' ? ": Frigade's targeting has no \"!\" before an expression; negate with != or a negated operator (!contains, !within, !isIn)" : '';
        throw new Unmapped(`unexpected "${char}"${hint}`, at);
      }
      tokens.push({ type: 'op', value: symbol, at });
      i += symbol.length;
    }
  }
  tokens.push({ type: 'end', at: source.length + 1 });
  return tokens;
}

// ---------------------------------------------------------------------------------------------------------------
// Parser: or := and (('||' | 'OR') and)*;  and := term (('&&' | 'AND') term)*;  term := '(' or ')' | comparison

const COMPARISONS = new Set(['==', '===', '!=', '!==', '>', '<', '>=', '<=']);
/** `within` units, as Frigade's evaluator reads them: `i` is minutes and `m` is months of 30 days. */
const UNIT_MS: Record<string, number> = { s: 1000, i: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, m: 2_592_000_000 };

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
    return this.#tokens[this.#next]!;
  }

  #take(): Token {
    return this.#tokens[this.#next++]!;
  }

  #isOp(value: string): boolean {
    const token = this.#peek();
    return token.type === 'op' && token.value === value;
  }

  #expect(value: string): void {
    const token = this.#take();
    if (token.type !== 'op' || token.value !== value) throw new Unmapped(`expected "${value}" but found ${describe(token)}`, token.at);
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
      const unit = match ? UNIT_MS[match[2]!] : undefined;
      if (!match || unit === undefined) {
        throw new Unmapped(`${operator} takes a number and a unit: s, i (minutes), h, d, w or m (months of 30 days), such as 7d; found ${describe(amount)}`, amount.at);
      }
      return { kind: 'within', left, negated: operator === '!within', ms: Number(match[1]) * unit, at: token.at };
    }
    if (operator === 'isSet' || operator === 'isNotSet') {
      this.#take();
      const value = this.#take();
      if (value.type !== 'name' || (value.value !== 'true' && value.value !== 'false')) throw new Unmapped(`${operator} takes true or false`, value.at);
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
      if (!/^[0-9]+(\.[0-9]+)?$/.test(token.text)) throw new Unmapped(`"${token.text}" is not a number (a duration such as 7d follows within)`, at);
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
    if (token.value === 'true' || token.value === 'false') return { kind: 'boolean', value: token.value === 'true', at };
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
          if (arg.type !== 'string') throw new Unmapped(`expected a quoted name as an argument but found ${describe(arg)}`, arg.at);
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
    const value = op === '+' ? left.value + right.value : op === '-' ? left.value - right.value : op === '*' ? left.value * right.value : left.value / right.value;
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
  const text = parts.map((part) => (part.args ? `${part.name}(${part.args.map((a) => `'${a}'`).join(', ')})` : part.name)).join('.');
  const [head, fn, ...rest] = parts;
  const arity = (part: { args?: string[] } | undefined, count: number) => part?.args?.length === count;
  const unknown = () => new Unmapped(`"${text}" is not one of Frigade's targeting forms (user.property, user.event, user.flow, group.property, …)`, at);
  if (parts.length === 1 && !head!.args) throw unknown();
  if ((head!.name === 'now' && arity(head, 0) && parts.length === 1) || (head!.name === 'Date' && fn?.name === 'now' && arity(fn, 0) && !rest.length)) {
    return { kind: 'time', offsetMs: 0, at };
  }
  // organization is Frigade's older name for group.
  const scope: Scope | undefined = head!.name === 'user' ? 'user' : head!.name === 'group' || head!.name === 'organization' ? 'group' : undefined;
  if (!scope || head!.args || !fn) throw unknown();
  const only = rest.length === 0;
  if (fn.name === 'properties' && !fn.args && rest.length === 1 && !rest[0]!.args) return { kind: 'property', scope, key: rest[0]!.name, at };
  if (fn.name === 'property' && arity(fn, 1) && only) return { kind: 'property', scope, key: fn.args![0]!, at };
  if (fn.name === 'propertyContains' && arity(fn, 2) && only) return { kind: 'propertyContains', scope, key: fn.args![0]!, needle: fn.args![1]!, at };
  if (fn.name === 'event' && arity(fn, 1) && rest.length === 1 && rest[0]!.name === 'count' && !rest[0]!.args) return { kind: 'eventCount', scope, event: fn.args![0]!, at };
  if (fn.name === 'eventCount' && arity(fn, 1) && only) return { kind: 'eventCount', scope, event: fn.args![0]!, at };
  if (scope === 'user' && only) {
    if (fn.name === 'flow' && arity(fn, 1)) return { kind: 'flow', slug: fn.args![0]!, at };
    if (fn.name === 'flowStep' && arity(fn, 2)) return { kind: 'flowStep', slug: fn.args![0]!, step: fn.args![1]!, at };
    if (fn.name === 'flowStepData' && arity(fn, 3)) return { kind: 'flowStepData', slug: fn.args![0]!, step: fn.args![1]!, field: fn.args![2]!, at };
    if (fn.name === 'isGuest' && arity(fn, 0)) return { kind: 'isGuest', at };
    if (fn.name === 'memberOfGroup' && (arity(fn, 0) || arity(fn, 1))) return { kind: 'memberOfGroup', ...(fn.args![0] !== undefined ? { groups: fn.args![0] } : {}), at };
    if (fn.name === 'currentUrl' && arity(fn, 0)) {
      return { kind: 'unmapped', reason: `${text} has no equivalent: the service does not know the page a user is on (startWhen.page limits where a flow opens)`, at };
    }
    if (fn.name === 'daysSinceFlowDone' && arity(fn, 1)) {
      return { kind: 'unmapped', reason: `${text} has no equivalent: the CEL context has each flow's status, not when it was completed or skipped`, at };
    }
    if (fn.name === 'daysSinceNow' && arity(fn, 1)) {
      return { kind: 'unmapped', reason: `${text} has no equivalent yet: write it with the property as a timestamp, such as now - timestamp(user.properties.${fn.args![0]}) > duration('720h')`, at };
    }
  }
  throw unknown();
}

// ---------------------------------------------------------------------------------------------------------------
// CEL, built as a small tree so negation and parentheses come out as a person would write them

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
  if (cel.t === 'rel' && NEGATED[cel.op]) return rel(cel.a, NEGATED[cel.op]!, cel.b);
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

const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

/** `user.properties.plan` and `has(…)`, or the index form for a key that is no CEL name (`user.properties['job-title']`). */
function entry(map: string, key: string): { value: string; present: Cel } {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && !CEL_RESERVED.has(key)) return { value: `${map}.${key}`, present: atom(`has(${map}.${key})`) };
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
  const text = abs % 3_600_000 === 0 ? `${abs / 3_600_000}h` : abs % 1000 === 0 ? `${abs / 1000}s` : `${Math.round(abs)}ms`;
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
  if (right.kind === 'string' && NUMERIC_TEXT.test(right.value)) return { value: `double(${value})`, right: String(Number(right.value)) };
  return undefined;
}

function translateCompare(node: Expression & { kind: 'compare' }): Cel {
  let { left, right, op } = node;
  if (op.startsWith('!') && op !== '!=') return not(translateCompare({ ...node, op: op.slice(1) }));
  if (op === '!=') return not(translateCompare({ ...node, op: '==' }));
  if (isConstant(left) && !isConstant(right)) {
    if (!FLIPPED[op]) throw new Unmapped(`"${op}" needs the value it reads on its left`, node.at);
    [left, right, op] = [right, left, FLIPPED[op]!];
  }
  if (left.kind === 'unmapped') throw new Unmapped(left.reason, left.at);
  if (right.kind === 'unmapped') throw new Unmapped(right.reason, right.at);
  const cannot = (why = '') => new Unmapped(`no equivalent for ${named(left)} ${op} ${named(right)}${why}`, node.at);

  switch (left.kind) {
    case 'property': {
      const { value, present } = entry(`${left.scope}.properties`, left.key);
      if (right.kind === 'property') {
        const other = entry(`${right.scope}.properties`, right.key);
        if (op === 'contains' || op === 'startsWith' || op === 'endsWith' || op === 'matches' || op === 'isIn') throw cannot();
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
        if (iso && (op === '==' || ORDERING.has(op))) return and(present, rel(`timestamp(${value})`, op, `timestamp('${iso}')`));
        if (op === '==') return and(present, rel(value, '==', quote(right.value)));
        if (op === 'contains') return and(present, atom(`${value}.lowerAscii().contains(${quote(lowerAscii(right.value))})`));
        if (op === 'startsWith' || op === 'endsWith') return and(present, atom(`${value}.${op}(${quote(right.value)})`));
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
      const count = right.kind === 'number' ? right.value : right.kind === 'string' && NUMERIC_TEXT.test(right.value) ? Number(right.value) : undefined;
      if (count === undefined || !(op === '==' || ORDERING.has(op))) throw cannot(': an event count is compared with a number');
      // No such event is a count of 0: where 0 passes, a user without the event passes too.
      const zeroPasses = op === '==' ? count === 0 : op === '>' ? 0 > count : op === '<' ? 0 < count : op === '>=' ? 0 >= count : 0 <= count;
      const comparison = rel(value, op, String(count));
      return zeroPasses ? or(not(present), comparison) : and(present, comparison);
    }
    case 'flow':
    case 'flowStep': {
      if (op !== '==' || right.kind !== 'string') throw cannot(': a status is compared with == or != and a status name');
      const flow = `flows[${quote(left.slug)}]`;
      return rel(left.kind === 'flow' ? `${flow}.status` : `${flow}.steps[${quote(left.step)}].status`, '==', quote(right.value));
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
      if ((op !== '==' && op !== 'isIn') || right.kind !== 'string') throw cannot(": compare it with == or != and group IDs, such as 'a,b'");
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
    throw new Unmapped(`${node.negated ? '!within' : 'within'} on ${named(left)} has no equivalent: the CEL context has each flow's status, not when it was completed or skipped`, node.at);
  }
  if (left.kind === 'unmapped') throw new Unmapped(left.reason, left.at);
  throw new Unmapped(`within reads a property that holds a time (user.property('signedUpAt') within 7d), not ${named(left)}`, node.at);
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
    return { cel: print(translate(new Parser(source).parse())).text };
  } catch (error) {
    if (error instanceof Unmapped) return { problem: { message: error.message, column: error.column } };
    throw error;
  }
}
