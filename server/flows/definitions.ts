// Flow definitions: reads a folder of YAML files, one flow per file, and checks each against the flow schema and CEL.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { FLOW_TYPE_ALIASES, type FlowData, type FlowFile, type FlowStatus, type FlowTranslation, type FlowType } from '../../src/api/wire.js';
import { findUnstorableText } from '../shared/json-guard.js';
import { compileExpression, eventCallsOf } from '../targeting/cel.js';
import { MAX_EVENT_WINDOW_MS } from '../targeting/event-window-calls.js';
import { parseDuration } from './durations.js';
import { checkNpsPoints, checkStepFields, type Report } from './fields.js';
import { pagePatternProblem } from './formats.js';
import { formatPath, validateFlowFile, type PathSegment } from './schema.js';
import { checkTranslations, missingText } from './translations.js';

export interface FlowDefinition {
  file: string;
  slug: string;
  name: string;
  type: FlowType;
  status: FlowStatus;
  targetingLogic: string;
  /** When a dismissed flow comes back (see docs/flows.md): `after` in milliseconds. */
  reshow?: { afterMs: number; times: number };
  data: FlowData;
  /** The flow's text in other languages, by locale code; served one locale at a time, never in `data`. */
  translations?: Record<string, FlowTranslation>;
}

/** One problem in a flow file: where (a path such as `data.steps[1].fields[0].name`, and a line) and what. */
export interface FlowProblem {
  /** The path of the value at fault; '' for the file as a whole. */
  path: string;
  /** 1-based line and column in the file. */
  line: number;
  column: number;
  message: string;
}

export interface FlowFileError {
  file: string;
  /** Every problem, one line each: `path (line n): what is wrong`. */
  message: string;
  problems: FlowProblem[];
}

/** What a file that loads holds that our elements do not draw themselves (a field type of the page's own, say). */
export interface FlowFileWarning {
  file: string;
  /** Every warning: `path (line n): what it is`. */
  message: string;
  warnings: FlowProblem[];
}

export function describeProblems(problems: readonly FlowProblem[]): string {
  return problems.map((p) => (p.path ? `${p.path} (line ${p.line}): ${p.message}` : `line ${p.line}: ${p.message}`)).join('; ');
}

/** The files in the flow folder that configure webhooks (server/webhooks/config.ts reads them), not flows. */
export const WEBHOOK_FILES = ['webhooks.yaml', 'webhooks.yml'];
/** The files in the flow folder that list collections (server/flows/collections.ts reads them), not flows. */
export const COLLECTION_FILES = ['collections.yaml', 'collections.yml'];

/** The flow files among a folder's `names`, in name order: YAML files that list neither webhooks nor collections. */
export function flowFileNames(names: readonly string[]): string[] {
  const notFlows = [...WEBHOOK_FILES, ...COLLECTION_FILES];
  return names.filter((name) => /\.ya?ml$/i.test(name) && !notFlows.includes(name.toLowerCase())).sort();
}

/** What a check asks beyond the file itself. */
export interface CheckOptions {
  /** Locale codes every text field should be translated into: each one a locale lacks is a warning. */
  locales?: readonly string[];
}

/**
 * Reads every `.yaml`/`.yml` file in `dir` but webhooks.yaml and collections.yaml. Invalid files are reported, and the
 * others still load; warnings are reported for every file that has them, and change nothing.
 */
export function readFlowDirectory(dir: string, options: CheckOptions = {}): { flows: FlowDefinition[]; errors: FlowFileError[]; warnings: FlowFileWarning[] } {
  const flows: FlowDefinition[] = [];
  const errors: FlowFileError[] = [];
  const warnings: FlowFileWarning[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    throw new Error(`cannot read the flow folder ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}); pass an existing folder with --flows`, { cause: error });
  }
  // webhooks.yaml and collections.yaml beside the flows are not flows.
  const files = flowFileNames(names);
  const seen = new Map<string, string>();
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(dir, file), 'utf8');
    } catch (error) {
      const problems = [{ path: '', line: 1, column: 1, message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` }];
      errors.push({ file, message: describeProblems(problems), problems });
      continue;
    }
    const { definition, problems, warnings: notes, locate } = checkFlowText(text, options);
    if (notes.length) warnings.push({ file, message: describeProblems(notes), warnings: notes });
    const other = definition && seen.get(definition.slug);
    if (definition && other) problems.push({ ...locate(['slug']), path: 'slug', message: `duplicate slug "${definition.slug}" (already defined in ${other})` });
    if (problems.length || !definition) {
      errors.push({ file, message: describeProblems(problems), problems });
      continue;
    }
    seen.set(definition.slug, file);
    flows.push({ file, ...definition });
  }
  return { flows, errors, warnings };
}

/** What a text field holding what cannot be stored is told; the translations import says the same of such a target. */
export const UNSTORABLE_TEXT = 'holds a NUL character (\\0) or an unpaired surrogate (such as \\uD800), which cannot be stored';

/**
 * Checks one file's text: YAML, storable text, the schema, unique ids, options where needed, fields, and CEL. Warnings
 * do not stop a file from loading.
 */
export function checkFlowText(
  text: string,
  options: CheckOptions = {},
): {
  definition?: Omit<FlowDefinition, 'file'>;
  problems: FlowProblem[];
  warnings: FlowProblem[];
  locate: (segments: readonly PathSegment[], key?: string) => { line: number; column: number };
} {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const at = (offset: number | undefined) => {
    const { line, col } = lines.linePos(offset ?? 0);
    return { line, column: col };
  };
  const locate = (segments: readonly PathSegment[], key?: string) => at(offsetOf(doc, segments, key));
  if (doc.errors.length) {
    const error = doc.errors[0];
    return { problems: [{ path: '', ...at(error.pos[0]), message: `bad YAML: ${error.message.split('\n')[0]}` }], warnings: [], locate };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { problems: [{ path: '', line: 1, column: 1, message: `bad YAML: ${error instanceof Error ? error.message : String(error)}` }], warnings: [], locate };
  }
  const problems: FlowProblem[] = [];
  const warnings: FlowProblem[] = [];
  const reportTo =
    (list: FlowProblem[]): Report =>
    (segments, message, key) =>
      list.push({ path: formatPath(key === undefined ? segments : [...segments, key]), ...locate(segments, key), message });
  const add = reportTo(problems);

  const unstorable = findUnstorableText(value);
  if (unstorable !== undefined) {
    const segments = unstorable.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    add(segments, UNSTORABLE_TEXT);
    return { problems, warnings, locate };
  }
  for (const problem of validateFlowFile(value)) add(problem.segments, problem.message, problem.key);
  checkSemantics(value, add, reportTo(warnings));
  if (options.locales?.length && isObject(value)) warnMissingText(value, options.locales, reportTo(warnings));
  const byPlace = (a: FlowProblem, b: FlowProblem) => a.line - b.line || a.column - b.column;
  problems.sort(byPlace);
  warnings.sort(byPlace);
  if (problems.length) return { problems, warnings, locate };
  const flow = value as FlowFile;
  return {
    definition: {
      slug: flow.slug,
      name: flow.name,
      // Frigade's names for our types (NPS_SURVEY) are served as ours.
      type: typeNamed(flow.type)!,
      status: flow.status ?? 'ACTIVE',
      targetingLogic: flow.targetingLogic ?? '',
      ...(flow.reshow ? { reshow: { afterMs: parseDuration(flow.reshow.after)!, times: flow.reshow.times } } : {}),
      // The start rules are the page's to check: they travel with the content.
      data: withButtonObjects(flow.startWhen ? { ...flow.data, startWhen: flow.startWhen } : flow.data) as FlowData,
      ...(flow.translations && Object.keys(flow.translations).length ? { translations: flow.translations } : {}),
    },
    problems,
    warnings,
    locate,
  };
}

/**
 * Frigade's flat button keys (`primaryButtonTitle`, `…Uri`, `…UriTarget`, and the secondary's) as the button objects our
 * elements draw, where a step has no object of its own: its object wins, as in Frigade's SDKs. A flat secondary button
 * completes the step, as Frigade's does. The flat keys stay, so Frigade's SDKs read the step as it was written.
 */
function withButtonObjects<Data extends { steps?: unknown }>(data: Data): Data {
  if (!Array.isArray(data.steps) || !data.steps.some((step) => isObject(step) && (step.primaryButtonTitle || step.secondaryButtonTitle))) return data;
  const button = (step: Record<string, unknown>, which: 'primary' | 'secondary') => {
    const title = step[`${which}ButtonTitle`];
    if (typeof title !== 'string' || step[`${which}Button`] !== undefined) return {};
    const uri = step[`${which}ButtonUri`];
    const target = step[`${which}ButtonUriTarget`];
    return {
      [`${which}Button`]: { title, ...(which === 'secondary' ? { action: 'step.complete' } : {}), ...(uri === undefined ? {} : { uri }), ...(target === undefined ? {} : { target }) },
    };
  };
  const steps = (data.steps as unknown[]).map((step) => (isObject(step) ? { ...step, ...button(step, 'primary'), ...button(step, 'secondary') } : step));
  return { ...data, steps };
}

/** The flow type a file's `type` names: ours, or the one a Frigade name stands for (NPS_SURVEY is a SURVEY). */
function typeNamed(name: unknown): FlowType | undefined {
  if (typeof name !== 'string') return undefined;
  return Object.hasOwn(FLOW_TYPE_ALIASES, name) ? FLOW_TYPE_ALIASES[name as keyof typeof FLOW_TYPE_ALIASES] : (name as FlowType);
}

/**
 * What the schema cannot say: unique step and field ids, choices where a kind needs them, fields (server/flows/fields.ts),
 * CEL that compiles, and translations that name what exists and keep its variables (server/flows/translations.ts). `warn` takes what loads but our elements do not draw.
 */
function checkSemantics(value: unknown, add: Report, warn: Report): void {
  if (!isObject(value)) return;
  const type = typeNamed(value.type);
  checkExpression(value.targetingLogic, ['targetingLogic'], add);
  checkReshow(value.reshow, add);
  checkStartWhen(value.startWhen, add);
  const data = value.data;
  if (!isObject(data)) return;
  checkExpression(data.completionCriteria, ['data', 'completionCriteria'], add);
  if (type === 'SURVEY' && isObject(data.props)) checkNpsPoints(data.props.options, ['data', 'props', 'options'], add);
  if (!Array.isArray(data.steps)) return;
  const stepIds = new Map<string, number>();
  for (const [index, step] of data.steps.entries()) {
    if (!isObject(step)) continue;
    const where: PathSegment[] = ['data', 'steps', index];
    if (typeof step.id === 'string') {
      const first = stepIds.get(step.id);
      if (first !== undefined) add([...where, 'id'], `duplicate step id "${step.id}" (also data.steps[${first}])`);
      else stepIds.set(step.id, index);
    }
    for (const key of ['completionCriteria', 'startCriteria', 'visibilityCriteria']) checkExpression(step[key], [...where, key], add);
    if (type === 'SURVEY' && step.type !== undefined && step.fields !== undefined) {
      add([...where, 'type'], 'a survey step asks by `type` or by `fields`, not both: with fields, each field is a question (an nps score is `{ id, type: nps }`)');
    } else if (type === 'SURVEY' && (step.type === 'single' || step.type === 'multiple') && !hasItems(step.options)) {
      add([...where, 'type'], `a "${step.type}" question needs options: a list of { value, label }`);
    }
    if (type === 'FORM' || type === 'SURVEY') checkStepFields(step, where, add, warn);
  }
  checkTranslations(value, add);
}

/** A warning at each source text a listed locale lacks (an exact translation only: `--locales fr-CA` asks for fr-CA's own). */
function warnMissingText(file: Record<string, unknown>, locales: readonly string[], warn: Report): void {
  const translations = isObject(file.translations) ? file.translations : {};
  for (const locale of locales) {
    const translation = isObject(translations[locale]) ? (translations[locale] as FlowTranslation) : undefined;
    for (const slot of missingText(file.data, translation)) {
      warn(['data', ...slot.source], `no "${locale}" translation (translations.${locale}.${formatPath(slot.key)})`);
    }
  }
}

/** `reshow.after` a duration above 0 and `reshow.times` a whole number (the schema checks the rest). */
function checkReshow(reshow: unknown, add: Report): void {
  if (!isObject(reshow)) return;
  const { after, times } = reshow;
  if (typeof after === 'string' && !((parseDuration(after) ?? 0) > 0)) {
    add(['reshow', 'after'], `bad duration ${JSON.stringify(after)}; expected a whole number above 0 and a unit (s, m, h, d or w), such as 48h or 7d`);
  }
  if (typeof times === 'number' && !Number.isInteger(times)) add(['reshow', 'times'], `expected a whole number, 1 or more, got ${times}`);
}

/** `startWhen.page` path patterns (a leading `!` excludes) and `startWhen.delay` a duration (the schema checks the selectors). */
function checkStartWhen(startWhen: unknown, add: Report): void {
  if (!isObject(startWhen)) return;
  const { page, delay } = startWhen;
  const pages = typeof page === 'string' ? [page] : Array.isArray(page) ? page : [];
  for (const [index, pattern] of pages.entries()) {
    if (typeof pattern !== 'string') continue;
    const path = pattern.startsWith('!') ? pattern.slice(1) : pattern;
    // Quoted as written, with its "!".
    const problem = pagePatternProblem(path)?.replace(JSON.stringify(path), JSON.stringify(pattern));
    if (problem) add(typeof page === 'string' ? ['startWhen', 'page'] : ['startWhen', 'page', index], problem);
  }
  if (typeof delay === 'string' && parseDuration(delay) === undefined) {
    add(['startWhen', 'delay'], `bad duration ${JSON.stringify(delay)}; expected a whole number and a unit (ms, s, m, h, d or w), such as 500ms or 3s`);
  }
}

function checkExpression(source: unknown, segments: PathSegment[], add: Report): void {
  if (typeof source !== 'string') return;
  try {
    compileExpression(source, () => {});
  } catch (error) {
    add(segments, `does not compile as CEL: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    return;
  }
  // A typo meant as "forever" (a window of thousands of years) is refused here; a read clamps it all the same.
  for (const call of eventCallsOf(source)) {
    if (call.fn === 'eventCount' && call.windowMs > MAX_EVENT_WINDOW_MS) {
      add(segments, `${call.scope}.eventCount('${call.event}', …): the window is over 100 years (876600h), the longest there is; for "ever", use ${call.scope}.events`);
    }
  }
}

/** The source offset of the value at `segments`, or of `key` in the mapping there; the nearest parent when absent. */
export function offsetOf(doc: Document, segments: readonly PathSegment[], key?: string): number {
  for (let length = segments.length; length >= 0; length--) {
    const node = segments.length ? doc.getIn(segments.slice(0, length), true) : doc.contents;
    if (!node || typeof node !== 'object') continue;
    if (key !== undefined && length === segments.length && isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
      if (pair && isScalar(pair.key) && pair.key.range) return pair.key.range[0];
    }
    const range = (node as { range?: [number, number, number] }).range;
    if (range) return range[0];
  }
  return 0;
}

function hasItems(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

