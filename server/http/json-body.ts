// Parses JSON request bodies strictly: valid UTF-8, no prototype keys, nothing PostgreSQL cannot store, no number that would change.
import { isUtf8 } from 'node:buffer';
import { parse as parseLossless } from 'lossless-json';
import secureJson from 'secure-json-parse';
import { checkJsonBody } from '../shared/json-guard.js';
import { HttpProblem } from '../shared/problem.js';

/** A number literal that a JavaScript number (and so the stored JSON) cannot hold as written. */
class UnsafeNumber {
  constructor(readonly text: string) {}
}

// Only a literal with 16 or more digits in a row, or a three-digit exponent, can overflow, underflow
// or lose an integer's precision; everything else takes the fast path through JSON.parse alone.
const MAYBE_UNSAFE = /\d{16}|[eE][+-]?\d{3}/;

/**
 * Turns a raw body into a JSON value, or throws a 400 problem naming what is wrong. Nothing is
 * coerced: `1e309`, `1e-400` and integers beyond 2^53 are refused rather than stored as
 * `null`, `0` or a nearby integer.
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) throw new HttpProblem(400, 'The body is empty; send a JSON object.', 'body');
  if (!isUtf8(raw)) throw new HttpProblem(400, 'The body is not valid UTF-8; send JSON encoded as UTF-8.', 'body');
  const text = raw.toString('utf8');
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (/forbidden prototype/i.test(reason)) {
      throw new HttpProblem(
        400,
        'The body holds a "__proto__" or "constructor.prototype" key, which is not accepted.',
        'body',
      );
    }
    throw new HttpProblem(400, `The body is not valid JSON: ${reason}`, 'body');
  }
  // Depth and storability first: the precise number check below recurses, so it only sees shallow bodies.
  checkJsonBody(value);
  if (MAYBE_UNSAFE.test(text)) {
    const exact = parseLossless(text, null, (literal) =>
      keepsItsValue(literal) ? Number(literal) : new UnsafeNumber(literal),
    );
    const unsafe = findUnsafeNumber(exact);
    if (unsafe) {
      throw new HttpProblem(
        400,
        `body field "${unsafe.path}" holds the number ${unsafe.literal.slice(0, 40)}, which would not be stored as sent ` +
          '(it overflows, underflows to 0, or is an integer beyond 2^53); send it as a string',
        unsafe.path,
      );
    }
  }
  return value;
}

/**
 * Whether a JSON number literal survives as a JavaScript number: it must not overflow to Infinity
 * (stored as null) or underflow to 0, and an integer must keep every digit. A decimal fraction is
 * rounded to the nearest double, as every JSON parser does.
 */
export function keepsItsValue(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isFinite(value)) return false;
  if (value === 0) return !/[1-9]/.test(literal.split(/[eE]/)[0]);
  if (/^-?\d+$/.test(literal)) return Number.isSafeInteger(value);
  return true;
}

function findUnsafeNumber(value: unknown): { path: string; literal: string } | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item.value instanceof UnsafeNumber) return { path: item.path || 'body', literal: item.value.text };
    if (typeof item.value !== 'object' || item.value === null) continue;
    for (const [key, child] of Object.entries(item.value))
      stack.push({ value: child, path: item.path ? `${item.path}.${key}` : key });
  }
  return undefined;
}
