// Frigade's flows as flow files: reads the list-flows answer (or one flow) and writes each flow as our YAML, its targeting and criteria in CEL.
import { Document, isMap, isScalar, isSeq, parseDocument, type Node, type Pair } from 'yaml';
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
/** Frigade's types that are another type's element here: its React kit draws an EMBEDDED_TIP as a card. */
const FRIGADE_TYPES: Record<string, string> = { EMBEDDED_TIP: 'CARD' };
/** Which of several versions of one slug becomes the file: the one users see first, then the newest. */
const STATUS_RANK: Record<string, number> = { ACTIVE: 0, DRAFT: 1, ARCHIVED: 2 };

/**
 * The flows in `input`: Frigade's list-flows answer (`{ data: [flow, …] }`), a list of flows, or one flow. Throws an
 * Error saying what was expected when it is none of them.
 */
export function frigadeFlowsIn(input: unknown): FrigadeFlow[] {
  const many = isRecord(input) && Array.isArray(input.data) ? input.data : Array.isArray(input) ? input : undefined;
  const list = many ?? [input];
  const expected =
    'expected Frigade\'s list of flows ({ "data": [ … ] }, as GET /v1/public/flows answers) or one flow (an object with a slug)';
  if (list.length === 0) throw new Error(`no flows: ${expected}`);
  for (const [index, flow] of list.entries()) {
    if (!isRecord(flow) || typeof flow.slug !== 'string' || !flow.slug)
      throw new Error(`${many ? `flow ${index}: ` : ''}no slug: ${expected}`);
  }
  const chosen = new Map<string, FrigadeFlow>();
  for (const flow of list as FrigadeFlow[]) {
    const kept = chosen.get(flow.slug);
    const rank = (f: FrigadeFlow) => [STATUS_RANK[f.status ?? 'ACTIVE'] ?? 3, -(f.version ?? 0)] as const;
    if (!kept || rank(flow)[0] < rank(kept)[0] || (rank(flow)[0] === rank(kept)[0] && rank(flow)[1] < rank(kept)[1]))
      chosen.set(flow.slug, flow);
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
export function convertFrigadeFlow(flow: FrigadeFlow): {
  text: string;
  problems: FlowProblem[];
  warnings: FlowProblem[];
} {
  const todos: Array<{ segments: PathSegment[]; comment: string; message: string }> = [];
  /** The CEL of one expression, or "false" (which holds for nobody) with the reason noted where it stands. */
  const convert = (expression: string, segments: PathSegment[]): string => {
    const result = frigadeTargetingToCel(expression);
    if ('cel' in result) return result.cel;
    const what = segments[0] === 'targetingLogic' ? "Frigade's targeting" : `Frigade's ${String(segments.at(-1))}`;
    const effect =
      segments[0] === 'targetingLogic'
        ? 'nobody gets this flow until it is rewritten'
        : '"false" holds its place until it is rewritten';
    const oneLine = expression.replace(/\s+/g, ' ').trim();
    const { message, column } = result.problem;
    todos.push({
      segments,
      comment: ` TODO: ${what} has no CEL form here, so ${effect}.\n   ${message} (column ${column})\n   Frigade: ${oneLine}`,
      message: `no CEL for Frigade's "${oneLine}": ${message} (column ${column}); written as "false" with a # TODO`,
    });
    return 'false';
  };

  /** Comments written where a value was rewritten to keep Frigade's meaning (not problems: the file is right). */
  const notes: Array<{ segments: PathSegment[]; comment: string }> = [];
  const problems: FlowProblem[] = [];
  let data: unknown = flow.data ?? {};
  /** Frigade's comments in its YAML, by the path of what they sit on, to write back where the same keys are. */
  const comments: PlacedComment[] = [];
  if (typeof data === 'string') {
    const source = parseDocument(data, { prettyErrors: false });
    if (source.errors.length) {
      problems.push({
        path: 'data',
        line: 1,
        column: 1,
        message: `Frigade's data is neither YAML nor JSON: ${source.errors[0].message.split('\n')[0]}`,
      });
      data = {};
    } else {
      data = source.toJS({ maxAliasCount: 100 }) ?? {};
      collectComments(source.contents, ['data'], comments);
    }
  }
  if (isRecord(data)) {
    data = { ...data };
    const record = data as Record<string, unknown>;
    if (typeof record.completionCriteria === 'string')
      record.completionCriteria = convert(record.completionCriteria, ['data', 'completionCriteria']);
    if (Array.isArray(record.steps)) {
      record.steps = (record.steps as unknown[]).map((step, index) => {
        if (!isRecord(step)) return step;
        // The id first, as flow files write it (and a # TODO never lands on the line of the "-").
        const { id, ...rest } = step;
        const copy: Record<string, unknown> = id === undefined ? rest : { id, ...rest };
        for (const key of STEP_CRITERIA)
          if (typeof copy[key] === 'string') copy[key] = convert(copy[key], ['data', 'steps', index, key]);
        if (Array.isArray(copy.fields))
          copy.fields = copy.fields.map((field, f) =>
            withFrigadePattern(field, ['data', 'steps', index, 'fields', f], notes),
          );
        return withButtonObjects(copy);
      });
    }
  }

  const targetingLogic =
    typeof flow.targetingLogic === 'string' ? convert(flow.targetingLogic, ['targetingLogic']) : '';
  // A flow Frigade has turned off is served to nobody: here that is a draft.
  const status = flow.status === 'ARCHIVED' ? 'ARCHIVED' : flow.active === false ? 'DRAFT' : (flow.status ?? 'ACTIVE');
  const type = flow.type === undefined ? 'CUSTOM' : (FRIGADE_TYPES[flow.type] ?? flow.type);
  const file = {
    slug: flow.slug,
    name: flow.name ?? flow.slug,
    type,
    status,
    ...(targetingLogic ? { targetingLogic } : {}),
    data,
  };
  const doc = new Document(file);
  doc.commentBefore = ` From Frigade: flow ${flow.slug}${flow.version === undefined ? '' : `, version ${flow.version}`}.${type === flow.type || flow.type === undefined ? '' : `\n Frigade's type ${flow.type} is drawn here as a ${type}.`}`;
  placeComments(doc, comments);
  for (const { segments, comment } of [...notes, ...todos]) {
    const key = pairAt(doc, segments)?.key;
    if (isScalar(key)) key.commentBefore = key.commentBefore ? `${key.commentBefore}\n${comment}` : comment;
  }
  const text = doc.toString({ lineWidth: 0 });
  const checked = checkFlowText(text);
  for (const todo of todos)
    problems.push({ path: formatPath(todo.segments), ...checked.locate(todo.segments), message: todo.message });
  problems.push(...checked.problems);
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  return { text, problems, warnings: checked.warnings };
}

/** A comment of Frigade's YAML and where it sat: before a key, before a value or item, or after it on its line. */
interface PlacedComment {
  path: PathSegment[];
  keyBefore?: string;
  before?: string;
  after?: string;
}

/** Every comment under `node`, by path; `path` is where `node` is in the flow file. */
function collectComments(node: unknown, path: PathSegment[], out: PlacedComment[]): void {
  if (isMap(node)) {
    for (const pair of node.items as Pair<unknown, Node | null>[]) {
      if (!isScalar(pair.key) || typeof pair.key.value !== 'string') continue;
      const at = [...path, pair.key.value];
      out.push({
        path: at,
        keyBefore: pair.key.commentBefore ?? undefined,
        before: pair.value?.commentBefore ?? undefined,
        after: pair.value?.comment ?? undefined,
      });
      collectComments(pair.value, at, out);
    }
  } else if (isSeq(node)) {
    for (const [index, item] of (node.items as Array<Node | null>).entries()) {
      out.push({ path: [...path, index], before: item?.commentBefore ?? undefined, after: item?.comment ?? undefined });
      collectComments(item, [...path, index], out);
    }
  }
}

/** The pair of `segments` in `doc`: its last segment a key of the map the others lead to. */
function pairAt(doc: Document, segments: readonly PathSegment[]): Pair | undefined {
  const parent = segments.length === 1 ? doc.contents : doc.getIn(segments.slice(0, -1), true);
  if (!isMap(parent)) return undefined;
  return parent.items.find((item) => isScalar(item.key) && item.key.value === segments.at(-1));
}

/**
 * Writes Frigade's comments back where the same key or item is in the flow file. A flat button key's go to the button
 * object written in its place; a comment whose key is gone (none is, but a rewrite may drop one) is not written.
 */
function placeComments(doc: Document, comments: PlacedComment[]): void {
  for (const { path, keyBefore, before, after } of comments) {
    if (!keyBefore && !before && !after) continue;
    const last = path.at(-1);
    if (typeof last === 'number') {
      const item = doc.getIn(path, true) as Node | undefined;
      if (item && before) item.commentBefore = before;
      if (item && after) item.comment = after;
      continue;
    }
    const flat = /^(primary|secondary)Button(Title|Uri|UriTarget)$/.exec(last ?? '');
    const pair = pairAt(doc, path) ?? (flat ? pairAt(doc, [...path.slice(0, -1), `${flat[1]}Button`]) : undefined);
    if (!pair) continue;
    // A flat key's comments, wherever they sat on its line, go before the object written in its place.
    const above = (flat ? [keyBefore, before, after] : [keyBefore]).filter(Boolean).join('\n');
    if (above && isScalar(pair.key))
      pair.key.commentBefore = pair.key.commentBefore ? `${pair.key.commentBefore}\n${above}` : above;
    const value = pair.value as Node | null;
    if (value && before && !flat) value.commentBefore = before;
    if (value && after && !flat) value.comment = after;
  }
}

/**
 * A form field's `pattern` with Frigade's meaning: Frigade tests it anywhere in the value (`/foo/` holds for
 * "a foo b"), ours must match the whole value, as HTML's `pattern` does. One that is not anchored at both ends is
 * written to match anywhere, with a note saying so where it stands.
 */
function withFrigadePattern(
  field: unknown,
  where: PathSegment[],
  notes: Array<{ segments: PathSegment[]; comment: string }>,
): unknown {
  if (!isRecord(field)) return field;
  const rule = field.pattern;
  const pattern = isRecord(rule) ? rule.value : rule;
  if (typeof pattern !== 'string' || !pattern) return field;
  const source =
    pattern.length >= 2 && pattern.startsWith('/') && pattern.endsWith('/') ? pattern.slice(1, -1) : pattern;
  if (source.startsWith('^') && source.endsWith('$') && !source.endsWith('\\$')) return field;
  const anywhere = `[\\s\\S]*(?:${source})[\\s\\S]*`;
  notes.push({
    segments: [...where, 'pattern'],
    comment: ` Frigade tests ${JSON.stringify(pattern)} anywhere in the value; a pattern here must match the whole value,\n so it is written to match anywhere, as in Frigade.`,
  });
  return { ...field, pattern: isRecord(rule) ? { ...rule, value: anywhere } : anywhere };
}

/**
 * A step's flat button keys (`primaryButtonTitle`, `primaryButtonUri`, `primaryButtonUriTarget`, and the secondary's)
 * rewritten as the button objects flow files use, in the place of the first flat key. Where the step has an object
 * already, it wins in Frigade's SDKs too, and the flat keys are dropped. A flat secondary button completes the step in
 * Frigade, so its object says `action: step.complete`.
 */
function withButtonObjects(step: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(step)) {
    const flat = /^(primary|secondary)Button(Title|Uri|UriTarget)$/.exec(key);
    if (!flat) {
      out[key] = value;
      continue;
    }
    const which = `${flat[1]}Button`;
    if (step[which] !== undefined || which in out) continue;
    const title = step[`${which}Title`];
    const uri = step[`${which}Uri`];
    const target = step[`${which}UriTarget`];
    out[which] = {
      ...(title === undefined ? {} : { title }),
      ...(flat[1] === 'secondary' ? { action: 'step.complete' } : {}),
      ...(uri === undefined ? {} : { uri }),
      ...(target === undefined ? {} : { target }),
    };
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
