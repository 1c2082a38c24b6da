// Frigade's flows as flow files: reads the list-flows answer (or one flow) and writes each flow as our YAML, its targeting and criteria in CEL.
import { Document, isMap, isScalar, parse as parseYaml, type Pair } from 'yaml';
import { checkFlowText, type FlowProblem } from './definitions.js';
import { frigadeTargetingToCel } from './frigade-targeting.js';
import { formatPath, type PathSegment } from './schema.js';

/** A flow as Frigade's API answers it: the fields the conversion reads. */
export interface FrigadeFlow {
  slug: string;
  name?: string;
  type?: string;
  status?: string;
  /** Frigade's switch for a flow that is turned off. */
  active?: boolean;
  version?: number;
  /** The flow's YAML (or JSON) as text; an object is taken as it is. */
  data?: unknown;
  targetingLogic?: string | null;
}

/** One flow file to write: its name in the output folder, its text, and every problem in it with its line. */
export interface ConvertedFlow {
  file: string;
  slug: string;
  text: string;
  problems: FlowProblem[];
  /** Field types the page's own code draws: the file loads, and `check` says so. */
  warnings: FlowProblem[];
}

/** The criteria in `data` that hold Frigade's expressions, as our flow files name them. */
const STEP_CRITERIA = ['completionCriteria', 'startCriteria', 'visibilityCriteria'];
/** Which of several versions of one slug becomes the file: the one users see first, then the newest. */
const STATUS_RANK: Record<string, number> = { ACTIVE: 0, DRAFT: 1, ARCHIVED: 2 };

/**
 * The flows in `input`: Frigade's list-flows answer (`{ data: [flow, …] }`), a list of flows, or one flow. Throws an
 * Error saying what was expected when it is none of them.
 */
export function frigadeFlowsIn(input: unknown): FrigadeFlow[] {
  const many = isRecord(input) && Array.isArray(input.data) ? input.data : Array.isArray(input) ? input : undefined;
  const list = many ?? [input];
  const expected = "expected Frigade's list of flows ({ \"data\": [ … ] }, as GET /v1/public/flows answers) or one flow (an object with a slug)";
  if (list.length === 0) throw new Error(`no flows: ${expected}`);
  for (const [index, flow] of list.entries()) {
    if (!isRecord(flow) || typeof flow.slug !== 'string' || !flow.slug) throw new Error(`${many ? `flow ${index}: ` : ''}no slug: ${expected}`);
  }
  const chosen = new Map<string, FrigadeFlow>();
  for (const flow of list as FrigadeFlow[]) {
    const kept = chosen.get(flow.slug);
    const rank = (f: FrigadeFlow) => [STATUS_RANK[f.status ?? 'ACTIVE'] ?? 3, -(f.version ?? 0)] as const;
    if (!kept || rank(flow)[0] < rank(kept)[0] || (rank(flow)[0] === rank(kept)[0] && rank(flow)[1] < rank(kept)[1])) chosen.set(flow.slug, flow);
  }
  return [...chosen.values()];
}

/** Converts every flow of Frigade's answer; file names are the slugs, made safe and unique. */
export function convertFrigadeFlows(input: unknown): ConvertedFlow[] {
  const names = new Set<string>();
  return frigadeFlowsIn(input).map((flow) => {
    const base = flow.slug.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'flow';
    let file = `${base}.yaml`;
    for (let n = 2; names.has(file.toLowerCase()); n++) file = `${base}-${n}.yaml`;
    names.add(file.toLowerCase());
    return { file, slug: flow.slug, ...convertFrigadeFlow(flow) };
  });
}

/** One flow as the text of a flow file, with a `# TODO` above each expression that has no CEL form, and every problem with its line. */
export function convertFrigadeFlow(flow: FrigadeFlow): { text: string; problems: FlowProblem[]; warnings: FlowProblem[] } {
  const todos: Array<{ segments: PathSegment[]; comment: string; message: string }> = [];
  /** The CEL of one expression, or "false" (which holds for nobody) with the reason noted where it stands. */
  const convert = (expression: string, segments: PathSegment[]): string => {
    const result = frigadeTargetingToCel(expression);
    if ('cel' in result) return result.cel;
    const what = segments[0] === 'targetingLogic' ? "Frigade's targeting" : `Frigade's ${String(segments.at(-1))}`;
    const effect = segments[0] === 'targetingLogic' ? 'nobody gets this flow until it is rewritten' : '"false" holds its place until it is rewritten';
    const oneLine = expression.replace(/\s+/g, ' ').trim();
    const { message, column } = result.problem;
    todos.push({
      segments,
      comment: ` TODO: ${what} has no CEL form here, so ${effect}.\n   ${message} (column ${column})\n   Frigade: ${oneLine}`,
      message: `no CEL for Frigade's "${oneLine}": ${message} (column ${column}); written as "false" with a # TODO`,
    });
    return 'false';
  };

  const problems: FlowProblem[] = [];
  let data: unknown = flow.data ?? {};
  if (typeof data === 'string') {
    try {
      data = parseYaml(data) ?? {};
    } catch (error) {
      problems.push({ path: 'data', line: 1, column: 1, message: `Frigade's data is neither YAML nor JSON: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` });
      data = {};
    }
  }
  if (isRecord(data)) {
    data = { ...data };
    const record = data as Record<string, unknown>;
    if (typeof record.completionCriteria === 'string') record.completionCriteria = convert(record.completionCriteria, ['data', 'completionCriteria']);
    if (Array.isArray(record.steps)) {
      record.steps = record.steps.map((step, index) => {
        if (!isRecord(step)) return step;
        // The id first, as flow files write it (and a # TODO never lands on the line of the "-").
        const { id, ...rest } = step;
        const copy: Record<string, unknown> = id === undefined ? rest : { id, ...rest };
        for (const key of STEP_CRITERIA) if (typeof copy[key] === 'string') copy[key] = convert(copy[key], ['data', 'steps', index, key]);
        return copy;
      });
    }
  }

  const targetingLogic = typeof flow.targetingLogic === 'string' ? convert(flow.targetingLogic, ['targetingLogic']) : '';
  // A flow Frigade has turned off is served to nobody: here that is a draft.
  const status = flow.status === 'ARCHIVED' ? 'ARCHIVED' : flow.active === false ? 'DRAFT' : (flow.status ?? 'ACTIVE');
  const file = {
    slug: flow.slug,
    name: flow.name ?? flow.slug,
    type: flow.type ?? 'CUSTOM',
    status,
    ...(targetingLogic ? { targetingLogic } : {}),
    data,
  };
  const doc = new Document(file);
  doc.commentBefore = ` From Frigade: flow ${flow.slug}${flow.version === undefined ? '' : `, version ${flow.version}`}.`;
  for (const { segments, comment } of todos) {
    const parent = segments.length === 1 ? doc.contents : doc.getIn(segments.slice(0, -1), true);
    if (!isMap(parent)) continue;
    const pair = (parent.items as Pair[]).find((item) => isScalar(item.key) && item.key.value === segments.at(-1));
    if (pair && isScalar(pair.key)) pair.key.commentBefore = comment;
  }
  const text = doc.toString({ lineWidth: 0 });
  const checked = checkFlowText(text);
  for (const todo of todos) problems.push({ path: formatPath(todo.segments), ...checked.locate(todo.segments), message: todo.message });
  problems.push(...checked.problems);
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  return { text, problems, warnings: checked.warnings };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
