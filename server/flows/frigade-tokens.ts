// Frigade's targeting syntax, first step: the tokens of an expression, and the Unmapped error every step throws.

/** An expression with no CEL form: one that does not parse, or a form with no equivalent here. */
export class Unmapped extends Error {
  constructor(
    message: string,
    readonly column: number,
  ) {
    super(message);
  }
}

export type Token = { at: number } & (
  | { type: 'string'; value: string }
  | { type: 'number'; text: string }
  | { type: 'name'; value: string }
  | { type: 'op'; value: string }
  | { type: 'end' }
);

/** Operators written as words that compare two values. A `!` before one negates it (`!contains`). */
export const COMPARING_WORDS = new Set(['contains', 'startsWith', 'endsWith', 'isIn', 'matches']);
/** All operators written as words: `within` (and `!within`) takes a duration, `isSet` and `isNotSet` true or false. */
const WORD_OPERATORS = new Set([...COMPARING_WORDS, 'within', 'isSet', 'isNotSet']);
const SYMBOLS = ['===', '!==', '==', '!=', '>=', '<=', '&&', '||', '>', '<', '(', ')', '.', ',', '+', '-', '*', '/'];

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  // The loop moves on by at least one character a turn, or throws.
  while (i < source.length) {
    const char = source[i];
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
        throw new Unmapped(
          `"!${word}": Frigade's targeting has no "!" before a value; negate with != or a negated operator (!contains, !within, !isIn)`,
          at,
        );
      }
      tokens.push({ type: 'op', value: `!${word}`, at });
      i += word.length + 1;
    } else {
      const symbol = SYMBOLS.find((s) => source.startsWith(s, i));
      if (!symbol) {
        const hint =
          char === '!'
            ? ': Frigade\'s targeting has no "!" before an expression; negate with != or a negated operator (!contains, !within, !isIn)'
            : '';
        throw new Unmapped(`unexpected "${char}"${hint}`, at);
      }
      tokens.push({ type: 'op', value: symbol, at });
      i += symbol.length;
    }
  }
  tokens.push({ type: 'end', at: source.length + 1 });
  return tokens;
}
