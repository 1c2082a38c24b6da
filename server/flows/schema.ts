// The flow file schema (schema/flow.schema.json, generated from src/api/wire.ts) compiled with Ajv, and its errors in words.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import schema from '../../schema/flow.schema.json';
import { FLOW_FORMATS } from './formats.js';

export type PathSegment = string | number;

/** `data.steps[1].fields[0].name` from its segments. */
export function formatPath(segments: readonly PathSegment[]): string {
  return segments.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

/** A schema problem at `segments` (with `key`, the key at fault inside that mapping, when there is one). */
export interface SchemaProblem {
  segments: PathSegment[];
  key?: string;
  message: string;
}

export const FLOW_SCHEMA = schema;

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true });
    for (const [name, problem] of Object.entries(FLOW_FORMATS))
      ajv.addFormat(name, { type: 'string', validate: (text: string) => problem(text) === undefined });
    compiled = ajv.compile(schema);
  }
  return compiled;
}

/** Every way `value` breaks the flow file schema, in words; empty when it fits. */
export function validateFlowFile(value: unknown): SchemaProblem[] {
  const validate = validator();
  if (validate(value)) return [];
  const problems: SchemaProblem[] = [];
  const seen = new Set<string>();
  for (const error of withoutAlternatives(validate.errors ?? [])) {
    const problem = describe(error, segmentsOf(value, error.instancePath));
    if (!problem) continue;
    const id = JSON.stringify([problem.segments, problem.key, problem.message]);
    if (seen.has(id)) continue;
    seen.add(id);
    problems.push(problem);
  }
  return problems;
}

/**
 * The errors to report where a value fits none of the alternatives of an `anyOf` (`advanceOn: click`, or a mapping):
 * when the value is of the kind one alternative takes, what is wrong inside it; else the `anyOf` alone, which names them.
 */
function withoutAlternatives(errors: ErrorObject[]): ErrorObject[] {
  const dropped = new Set<ErrorObject>();
  for (const anyOf of errors.filter((error) => error.keyword === 'anyOf')) {
    // Its alternatives' errors: under its schema path, at its value or inside it (a schema path is the same for every list item).
    const inside = errors.filter(
      (error) =>
        error !== anyOf &&
        error.schemaPath.startsWith(`${anyOf.schemaPath}/`) &&
        (error.instancePath === anyOf.instancePath || error.instancePath.startsWith(`${anyOf.instancePath}/`)),
    );
    const branchOf = (error: ErrorObject) => error.schemaPath.slice(anyOf.schemaPath.length + 1).split('/')[0];
    // An alternative the value is not even the kind of: its type, const or enum failed on the value itself.
    const misfits = new Set(
      inside
        .filter(
          (error) => error.instancePath === anyOf.instancePath && ['type', 'const', 'enum'].includes(error.keyword),
        )
        .map(branchOf),
    );
    // Among mappings (a link with `url` or with `flow`): one that lacks a key it requires, where another lacks none.
    const lacking = new Set(
      inside.filter((error) => error.instancePath === anyOf.instancePath && error.keyword === 'required').map(branchOf),
    );
    const branches = new Set(inside.map(branchOf));
    if ([...branches].some((branch) => !misfits.has(branch) && !lacking.has(branch)))
      for (const branch of lacking) misfits.add(branch);
    const fitting = inside.filter((error) => !misfits.has(branchOf(error)));
    for (const error of inside) if (!fitting.includes(error)) dropped.add(error);
    if (fitting.length > 0) dropped.add(anyOf);
  }
  return errors.filter((error) => !dropped.has(error));
}

/** JSON pointer to path segments: an index where the value there is a list, a key otherwise. */
function segmentsOf(value: unknown, pointer: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let current = value;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const index = Array.isArray(current) ? Number(key) : undefined;
    segments.push(index ?? key);
    current = current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[key] : undefined;
  }
  return segments;
}

function describe(error: ErrorObject, segments: PathSegment[]): SchemaProblem | undefined {
  const parent = (error.parentSchema ?? {}) as { properties?: Record<string, unknown>; required?: string[] };
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'if':
    case 'const':
      // The per-type conditions: what failed inside them is reported on its own.
      return undefined;
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const known = Object.keys(parent.properties ?? {});
      const guess = closest(key, known);
      // Only where props take free-form data (a translation's props take text options alone).
      const props = parent.properties?.props as { additionalProperties?: unknown } | undefined;
      const custom = props?.additionalProperties === true ? '; custom data goes under props' : '';
      return {
        segments,
        key,
        message: `unknown key${guess ? ` (did you mean "${guess}"?)` : ''}; expected one of ${known.join(', ')}${custom}`,
      };
    }
    case 'propertyNames':
      // The key at fault, and the pattern it missed (Ajv reports that beside it, marked with the key: dropped below).
      return {
        segments,
        key: String(params.propertyName),
        message: `${JSON.stringify(params.propertyName)} is not a key here: ${keyRule(error)}`,
      };
    case 'required':
      return { segments, key: String(params.missingProperty), message: 'required, but missing' };
    case 'type': {
      const expected = ([] as string[]).concat(params.type as string | string[]);
      const needs =
        expected.includes('object') && parent.required?.length ? ` with ${parent.required.join(' and ')}` : '';
      return {
        segments,
        message: `expected ${expected.map(nameOfType).join(' or ')}${needs}, got ${describeValue(error.data)}`,
      };
    }
    case 'enum':
      return {
        segments,
        message: `unknown value ${JSON.stringify(error.data)}; expected one of ${(params.allowedValues as unknown[]).map((v) => String(v)).join(', ')}`,
      };
    case 'minLength':
      return {
        segments,
        message:
          params.limit === 1 ? 'expected a non-empty string' : `expected at least ${String(params.limit)} characters`,
      };
    case 'pattern':
      if ((error as ErrorObject & { propertyName?: string }).propertyName !== undefined) return undefined;
      return { segments, message: `${describeValue(error.data)} does not match ${String(params.pattern)}` };
    case 'format': {
      const why = typeof error.data === 'string' ? FLOW_FORMATS[String(params.format)]?.(error.data) : undefined;
      return { segments, message: why ?? `expected a ${String(params.format)}` };
    }
    case 'anyOf': {
      const alternatives = (
        (error.schema ?? []) as Array<{ const?: unknown; enum?: unknown[]; type?: string; required?: string[] }>
      ).map((alternative) =>
        alternative.const !== undefined
          ? JSON.stringify(alternative.const)
          : alternative.enum
            ? alternative.enum.map((v) => JSON.stringify(v)).join(', ')
            : `${nameOfType(alternative.type ?? 'value')}${alternative.required?.length ? ` with ${alternative.required.join(' and ')}` : ''}`,
      );
      return { segments, message: `expected ${alternatives.join(', or ')}, got ${describeValue(error.data)}` };
    }
    case 'minItems':
    case 'maxItems': {
      const limit = Number(params.limit);
      const count = Array.isArray(error.data) ? error.data.length : 0;
      const bound = error.keyword === 'minItems' ? 'at least' : 'at most';
      return { segments, message: `expected ${bound} ${limit} item${limit === 1 ? '' : 's'}, got ${count}` };
    }
    case 'minimum':
    case 'maximum':
      return {
        segments,
        message: `expected a number ${String(params.comparison)} ${String(params.limit)}, got ${describeValue(error.data)}`,
      };
    default:
      return { segments, message: error.message ?? 'does not fit the flow schema' };
  }
}

/** What the keys of a mapping must look like: a locale code for `translations`, else the pattern. */
function keyRule(error: ErrorObject): string {
  const pattern = String((error.schema as { pattern?: string } | undefined)?.pattern ?? '');
  return error.instancePath === '/translations'
    ? 'expected a locale code: a language, then optionally a script and a region (fr, fr-CA, pt-BR, zh-Hans, es-419)'
    : `expected a key matching ${pattern}`;
}

function nameOfType(type: string): string {
  return (
    {
      string: 'a string',
      number: 'a number',
      integer: 'a whole number',
      boolean: 'true or false',
      object: 'a mapping',
      array: 'a list',
    }[type] ?? type
  );
}

function describeValue(value: unknown): string {
  if (value === null) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- no object is left here
  return `${typeof value === 'number' ? 'the number' : ''} ${String(value)}`.trim();
}

/** Keys other tools use for what ours call otherwise. */
const ALIASES: Record<string, string> = {
  name: 'id',
  key: 'id',
  image: 'imageUri',
  img: 'imageUri',
  video: 'videoUri',
  text: 'subtitle',
  body: 'subtitle',
  description: 'subtitle',
  url: 'uri',
  href: 'uri',
  link: 'uri',
  choices: 'options',
  button: 'primaryButton',
};

/** A known key the author probably meant: a known alias, one that begins with the other, or within two edits. */
export function closest(key: string, known: string[]): string | undefined {
  const lower = key.toLowerCase();
  const alias = ALIASES[lower];
  if (alias && known.includes(alias)) return alias;
  return (
    known.find((k) => lower.length >= 3 && k.toLowerCase().startsWith(lower)) ??
    known.find((k) => k.length >= 3 && lower.startsWith(k.toLowerCase())) ??
    known.find((k) => distance(lower, k.toLowerCase()) <= Math.min(2, Math.floor(k.length / 3)))
  );
}

/** Levenshtein distance: the fewest one-character insertions, deletions and substitutions from `a` to `b`. */
export function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}
