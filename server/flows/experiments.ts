// experiments.yaml beside the flow files: reads and checks it (statuses, goals, variants and their weights, known flows, one running experiment per flow), each problem with its line.
import {
  EXPERIMENT_STATUSES,
  type ExperimentDefinition,
  type ExperimentStatus,
  type VariantDefinition,
} from '../../src/api/wire.js';
import { rangeEnds } from '../../src/api/experiment-assignment.js';
import { EXPERIMENT_FILES, type FlowFileError, type FlowProblem } from './definitions.js';
import { checkGoal, type Goal } from './goals.js';
import type { PathSegment } from './schema.js';
import {
  byLine,
  isObject,
  parseSideFile,
  readListFileIn,
  sideFileIn,
  unknownKeys,
  type AddProblem,
} from './side-file.js';

export interface Variant {
  id: string;
  /** The variant's flow; undefined for a control group. */
  flow: string | undefined;
  weight: number;
}

/** An experiment as the service uses it: its goal's window in milliseconds, and each variant's range of buckets. */
export interface Experiment {
  id: string;
  status: ExperimentStatus;
  goal: Goal;
  variants: Variant[];
  /** Where each variant's range of the 10,000 buckets ends (exclusive), in order. */
  ends: number[];
  winner: string | undefined;
  /** Every variant's flow, each once, in order. */
  flows: string[];
}

const FILE_KEYS = ['experiments'];
const EXPERIMENT_KEYS: ReadonlyArray<keyof ExperimentDefinition> = ['id', 'status', 'goal', 'variants', 'winner'];
const VARIANT_KEYS: ReadonlyArray<keyof VariantDefinition> = ['id', 'flow', 'weight'];

/** The name of the experiments file in `dir`, when there is one. */
export const experimentsFileIn = (dir: string): string | undefined => sideFileIn(dir, EXPERIMENT_FILES);

/**
 * Reads the folder's experiments file, checking its flows against `slugs` (the flows loaded from the same folder).
 * No file: no experiments. A file with any problem is refused whole, with every problem.
 */
export function readExperiments(
  dir: string,
  slugs: ReadonlySet<string>,
): { experiments: Experiment[]; error?: FlowFileError } {
  const { value, error } = readListFileIn(dir, EXPERIMENT_FILES, (text) => {
    const { experiments, problems } = checkExperimentsText(text, slugs);
    return { value: experiments, problems };
  });
  return { experiments: value, error };
}

/** Checks the text of an experiments file; `experiments` is meaningful only when `problems` is empty. */
export function checkExperimentsText(
  text: string,
  slugs: ReadonlySet<string>,
): { experiments: Experiment[]; problems: FlowProblem[] } {
  const { value, problems, add } = parseSideFile(text);
  if (problems.length) return { experiments: [], problems };
  if (value === null || value === undefined) return { experiments: [], problems };
  if (!isObject(value)) {
    add([], 'expected a mapping with experiments: a list of { id, status, goal, variants }');
    return { experiments: [], problems };
  }
  unknownKeys(value, FILE_KEYS, [], add);
  const list = value.experiments;
  if (list === undefined) add([], 'required, but missing', 'experiments');
  else if (!Array.isArray(list)) add(['experiments'], 'expected a list of { id, status, goal, variants }');
  const experiments: Experiment[] = [];
  const ids = new Map<string, number>();
  /** The running experiment (and variant) each flow is in already. */
  const running = new Map<string, string>();
  for (const [index, item] of (Array.isArray(list) ? list : []).entries()) {
    const where: PathSegment[] = ['experiments', index];
    if (!isObject(item)) {
      add(where, 'expected a mapping with id, status, goal and variants');
      continue;
    }
    unknownKeys(item, EXPERIMENT_KEYS, where, add);
    const { id, status, goal, variants, winner } = item;
    if (id === undefined) add(where, 'required, but missing', 'id');
    else if (typeof id !== 'string' || id.trim() === '') add([...where, 'id'], 'expected a non-empty string');
    else if (ids.has(id)) add([...where, 'id'], `duplicate experiment id "${id}" (also experiments[${ids.get(id)}])`);
    else ids.set(id, index);
    if (status === undefined) add(where, 'required, but missing', 'status');
    else if (!(EXPERIMENT_STATUSES as readonly unknown[]).includes(status))
      add(
        [...where, 'status'],
        `unknown status ${JSON.stringify(status)}; expected one of ${EXPERIMENT_STATUSES.join(', ')}`,
      );
    const checkedGoal =
      goal === undefined ? add(where, 'required, but missing', 'goal') : checkGoal(goal, [...where, 'goal'], add);
    const checked = checkVariants(variants, where, slugs, add);
    if (winner !== undefined) {
      if (typeof winner !== 'string' || !checked.some((variant) => variant.id === winner))
        add(
          [...where, 'winner'],
          `${JSON.stringify(winner)} is not one of this experiment's variants (${checked.map((v) => v.id).join(', ')})`,
        );
      else if (status !== 'ended') add([...where, 'winner'], 'a winner is given only with status: ended');
    }
    if (status === 'running') {
      for (const [variantIndex, variant] of checked.entries()) {
        if (!variant.flow) continue;
        const other = running.get(variant.flow);
        if (other)
          add(
            [...where, 'variants', variantIndex, 'flow'],
            `flow "${variant.flow}" is already in running experiment ${other}; a flow may be in one running experiment`,
          );
        else running.set(variant.flow, `"${String(id)}"`);
      }
    }
    if (typeof id !== 'string' || !checkedGoal || checked.length === 0) continue;
    experiments.push({
      id,
      status: status as ExperimentStatus,
      goal: checkedGoal,
      variants: checked,
      ends: rangeEnds(checked),
      winner: typeof winner === 'string' ? winner : undefined,
      flows: [...new Set(checked.flatMap((variant) => (variant.flow ? [variant.flow] : [])))],
    });
  }
  byLine(problems);
  return { experiments: problems.length ? [] : experiments, problems };
}

/** An experiment's variants: at least two, unique ids, known flows each in one variant, positive weights. */
function checkVariants(
  variants: unknown,
  where: PathSegment[],
  slugs: ReadonlySet<string>,
  add: AddProblem,
): Variant[] {
  if (variants === undefined) {
    add(where, 'required, but missing', 'variants');
    return [];
  }
  if (!Array.isArray(variants) || variants.length < 2) {
    add([...where, 'variants'], 'expected a list of at least two { id, flow, weight }');
    return [];
  }
  const checked: Variant[] = [];
  const ids = new Set<string>();
  const flows = new Set<string>();
  for (const [index, item] of variants.entries()) {
    const at: PathSegment[] = [...where, 'variants', index];
    if (!isObject(item)) {
      add(at, 'expected a mapping with id, flow (none for a control) and weight');
      continue;
    }
    unknownKeys(item, VARIANT_KEYS, at, add);
    const { id, flow, weight } = item;
    if (id === undefined) add(at, 'required, but missing', 'id');
    else if (typeof id !== 'string' || id.trim() === '') add([...at, 'id'], 'expected a non-empty string');
    else if (ids.has(id)) add([...at, 'id'], `duplicate variant id "${id}" in this experiment`);
    else ids.add(id);
    if (flow !== undefined && flow !== null) {
      if (typeof flow !== 'string') add([...at, 'flow'], 'expected a flow slug (a string), or none for a control');
      else if (!slugs.has(flow))
        add([...at, 'flow'], `unknown flow slug "${flow}": no flow file in this folder defines it`);
      else if (flows.has(flow)) add([...at, 'flow'], `flow "${flow}" is in two variants of this experiment`);
      else flows.add(flow);
    }
    if (weight === undefined) add(at, 'required, but missing', 'weight');
    else if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0)
      add([...at, 'weight'], `bad weight ${JSON.stringify(weight)}; expected a positive number`);
    checked.push({
      id: typeof id === 'string' ? id : '',
      flow: typeof flow === 'string' ? flow : undefined,
      weight: typeof weight === 'number' ? weight : 0,
    });
  }
  return checked;
}
