// limits.yaml beside the flow files: reads and checks the global frequency limits (their sets of flows, counts, windows and gaps), each problem with its line.
import { FLOW_TYPES, type FlowType, type LimitDefinition } from '../../src/api/wire.js';
import { LIMIT_FILES, type FlowFileError, type FlowProblem } from './definitions.js';
import { parseDuration } from './durations.js';
import { closest, type PathSegment } from './schema.js';
import {
  byLine,
  isObject,
  parseSideFile,
  readListFileIn,
  sideFileIn,
  unknownKeys,
  type AddProblem,
} from './side-file.js';

/** A limit as the service uses it: its set, and its window and gap in milliseconds (undefined: not this kind of rule). */
export interface Limit {
  id: string;
  /** The flow types of its set, when it names types. */
  types?: FlowType[];
  /** The flow slugs of its set, when it names flows. */
  flows?: string[];
  max?: number;
  /** `per` as written, and in milliseconds. */
  per?: string;
  perMs?: number;
  minGap?: string;
  minGapMs?: number;
}

const FILE_KEYS = ['limits'];
const LIMIT_KEYS: ReadonlyArray<keyof LimitDefinition> = ['id', 'types', 'flows', 'max', 'per', 'minGap'];
const SHAPE = '{ id, types or flows, max and per, or minGap }';

/** The name of the limits file in `dir`, when there is one. */
export const limitsFileIn = (dir: string): string | undefined => sideFileIn(dir, LIMIT_FILES);

/**
 * Reads the folder's limits file, checking its flows against `slugs` (the flows loaded from the same folder). No file:
 * no limits. A file with any problem is refused whole, with every problem.
 */
export function readLimits(dir: string, slugs: ReadonlySet<string>): { limits: Limit[]; error?: FlowFileError } {
  const { value, error } = readListFileIn(dir, LIMIT_FILES, (text) => {
    const { limits, problems } = checkLimitsText(text, slugs);
    return { value: limits, problems };
  });
  return { limits: value, error };
}

/** Checks the text of a limits file; `limits` is meaningful only when `problems` is empty. */
export function checkLimitsText(
  text: string,
  slugs: ReadonlySet<string>,
): { limits: Limit[]; problems: FlowProblem[] } {
  const { value, problems, add } = parseSideFile(text);
  if (problems.length || value === null || value === undefined) return { limits: [], problems };
  if (!isObject(value)) {
    add([], `expected a mapping with limits: a list of ${SHAPE}`);
    return { limits: [], problems };
  }
  unknownKeys(value, FILE_KEYS, [], add);
  const list = value.limits;
  if (list === undefined) add([], 'required, but missing', 'limits');
  else if (!Array.isArray(list)) add(['limits'], `expected a list of ${SHAPE}`);
  const limits: Limit[] = [];
  const ids = new Map<string, number>();
  for (const [index, item] of (Array.isArray(list) ? list : []).entries()) {
    const where: PathSegment[] = ['limits', index];
    if (!isObject(item)) {
      add(where, `expected a mapping ${SHAPE}`);
      continue;
    }
    unknownKeys(item, LIMIT_KEYS, where, add);
    const { id } = item;
    if (id === undefined) add(where, 'required, but missing', 'id');
    else if (typeof id !== 'string' || id.trim() === '') add([...where, 'id'], 'expected a non-empty string');
    else if (ids.has(id)) add([...where, 'id'], `duplicate limit id "${id}" (also limits[${ids.get(id)}])`);
    else ids.set(id, index);
    const set = checkSet(item, where, slugs, add);
    const rule = checkRule(item, where, add);
    if (typeof id === 'string' && set && rule) limits.push({ id, ...set, ...rule });
  }
  byLine(problems);
  return { limits: problems.length ? [] : limits, problems };
}

/** A rule's set: `types` (known flow types) or `flows` (slugs of this folder), not both, not empty. */
function checkSet(
  item: Record<string, unknown>,
  where: PathSegment[],
  slugs: ReadonlySet<string>,
  add: AddProblem,
): Pick<Limit, 'types' | 'flows'> | undefined {
  const { types, flows } = item;
  if (types === undefined && flows === undefined) {
    add(where, 'a limit needs its set of flows: types (such as [ANNOUNCEMENT, TOUR]) or flows (slugs)');
    return undefined;
  }
  if (types !== undefined && flows !== undefined) {
    add([...where, 'flows'], 'give types or flows, not both');
    return undefined;
  }
  const key = types !== undefined ? 'types' : 'flows';
  const list = types ?? flows;
  if (!Array.isArray(list) || list.length === 0) {
    add([...where, key], `expected a non-empty list of ${key === 'types' ? 'flow types' : 'flow slugs'}`);
    return undefined;
  }
  let ok = true;
  for (const [index, entry] of list.entries()) {
    if (key === 'types' && !(FLOW_TYPES as readonly unknown[]).includes(entry)) {
      const guess = typeof entry === 'string' ? closest(entry.toUpperCase(), [...FLOW_TYPES]) : undefined;
      add(
        [...where, key, index],
        `unknown flow type ${JSON.stringify(entry)}${guess ? ` (did you mean "${guess}"?)` : ''}; expected one of ${FLOW_TYPES.join(', ')}`,
      );
      ok = false;
    } else if (key === 'flows' && (typeof entry !== 'string' || !slugs.has(entry))) {
      const guess = typeof entry === 'string' ? closest(entry, [...slugs]) : undefined;
      add(
        [...where, key, index],
        `unknown flow slug ${JSON.stringify(entry)}${guess ? ` (did you mean "${guess}"?)` : ''}: no flow file in this folder defines it`,
      );
      ok = false;
    }
  }
  if (!ok) return undefined;
  return key === 'types' ? { types: [...new Set(list as FlowType[])] } : { flows: [...new Set(list as string[])] };
}

/** A rule's measure: `max` (a positive whole number) with `per` (a duration), `minGap` (a duration), or both. */
function checkRule(
  item: Record<string, unknown>,
  where: PathSegment[],
  add: AddProblem,
): Pick<Limit, 'max' | 'per' | 'perMs' | 'minGap' | 'minGapMs'> | undefined {
  const { max, per, minGap } = item;
  if (max === undefined && per === undefined && minGap === undefined) {
    add(
      where,
      'a limit needs max and per (at most max first starts per window), or minGap (the least time between two)',
    );
    return undefined;
  }
  let ok = true;
  if (max !== undefined && !(typeof max === 'number' && Number.isInteger(max) && max > 0)) {
    add([...where, 'max'], `expected a positive whole number, got ${JSON.stringify(max)}`);
    ok = false;
  }
  if ((max === undefined) !== (per === undefined)) {
    add(
      where,
      max === undefined
        ? 'per needs max: how many first starts the window allows'
        : 'max needs per: the window it counts in, such as 1d',
      max === undefined ? 'max' : 'per',
    );
    ok = false;
  }
  const duration = (key: 'per' | 'minGap', value: unknown) => {
    if (value === undefined) return undefined;
    const ms = typeof value === 'string' ? parseDuration(value) : undefined;
    if (!ms) {
      add(
        [...where, key],
        `bad duration ${JSON.stringify(value)}; expected a whole number above 0 and a unit (s, m, h, d or w), such as ${key === 'per' ? '1d' : '4h'}`,
      );
      ok = false;
    }
    return ms ?? undefined;
  };
  const perMs = duration('per', per);
  const minGapMs = duration('minGap', minGap);
  if (!ok) return undefined;
  return {
    // Both are strings here: a duration of any other kind was refused above.
    ...(max !== undefined ? { max: max as number, per: (per as string).trim(), perMs } : {}),
    ...(minGap !== undefined ? { minGap: (minGap as string).trim(), minGapMs } : {}),
  };
}
