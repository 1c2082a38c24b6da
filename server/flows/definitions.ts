// Flow definitions: reads a folder of YAML files, one flow per file, and checks each against the flow schema and CEL.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { FlowData, FlowFile, FlowSchedule, FlowStatus, FlowTranslation, FlowType } from '../../src/api/wire.js';
import { findUnstorableText } from '../shared/json-guard.js';
import { parseDuration } from './durations.js';
import { dateTimeMs } from './formats.js';
import { goalOf, type Goal } from './goals.js';
import type { Report } from './fields.js';
import { formatPath, validateFlowFile, type PathSegment } from './schema.js';
import { checkBlockFlows, checkSemantics, isObject, typeNamed, warnMissingText } from './semantic-checks.js';

export interface FlowDefinition {
  file: string;
  slug: string;
  name: string;
  type: FlowType;
  status: FlowStatus;
  targetingLogic: string;
  /** When a dismissed flow comes back (see docs/flows.md): `after` in milliseconds. */
  reshow?: { afterMs: number; times: number };
  /** What the flow is for (see goals.ts), counted in its analytics. */
  goal?: Goal;
  /** When the flow may be shown (epoch milliseconds): from `startMs` (inclusive) until `endMs` (exclusive). */
  schedule?: { start?: string; end?: string; startMs: number; endMs: number };
  /** Never held back by a global limit (limits.yaml); its first start still counts. */
  ignoreLimits?: boolean;
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
  return problems
    .map((p) => (p.path ? `${p.path} (line ${p.line}): ${p.message}` : `line ${p.line}: ${p.message}`))
    .join('; ');
}

/** The files in the flow folder that configure webhooks (server/webhooks/config.ts reads them), not flows. */
export const WEBHOOK_FILES = ['webhooks.yaml', 'webhooks.yml'];
/** The files in the flow folder that list collections (server/flows/collections.ts reads them), not flows. */
export const COLLECTION_FILES = ['collections.yaml', 'collections.yml'];
export const EXPERIMENT_FILES = ['experiments.yaml', 'experiments.yml'];
export const LIMIT_FILES = ['limits.yaml', 'limits.yml'];

/** The flow files among a folder's `names`, in name order: YAML files that are not side files (webhooks, collections, experiments, limits). */
export function flowFileNames(names: readonly string[]): string[] {
  const notFlows = [...WEBHOOK_FILES, ...COLLECTION_FILES, ...EXPERIMENT_FILES, ...LIMIT_FILES];
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
export function readFlowDirectory(
  dir: string,
  options: CheckOptions = {},
): { flows: FlowDefinition[]; errors: FlowFileError[]; warnings: FlowFileWarning[] } {
  const flows: FlowDefinition[] = [];
  const errors: FlowFileError[] = [];
  const warnings: FlowFileWarning[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    throw new Error(
      `cannot read the flow folder ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}); pass an existing folder with --flows`,
      { cause: error },
    );
  }
  // webhooks.yaml and collections.yaml beside the flows are not flows.
  const files = flowFileNames(names);
  const seen = new Map<string, string>();
  /** Where each loaded resource centre's problems go: its file's own lines. */
  const located = new Map<FlowDefinition, (segments: readonly PathSegment[]) => { line: number; column: number }>();
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(dir, file), 'utf8');
    } catch (error) {
      const problems = [
        {
          path: '',
          line: 1,
          column: 1,
          message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        },
      ];
      errors.push({ file, message: describeProblems(problems), problems });
      continue;
    }
    const { definition, problems, warnings: notes, locate } = checkFlowText(text, options);
    if (notes.length) warnings.push({ file, message: describeProblems(notes), warnings: notes });
    const other = definition && seen.get(definition.slug);
    if (definition && other)
      problems.push({
        ...locate(['slug']),
        path: 'slug',
        message: `duplicate slug "${definition.slug}" (already defined in ${other})`,
      });
    if (problems.length || !definition) {
      errors.push({ file, message: describeProblems(problems), problems });
      continue;
    }
    seen.set(definition.slug, file);
    const loaded = { file, ...definition };
    if (definition.type === 'RESOURCE_CENTER') located.set(loaded, locate);
    flows.push(loaded);
  }
  // A resource centre's blocks name other flows of the folder, as collections.yaml does: checked once all have
  // loaded, against those that did. One naming a flow that is missing, refused or of the wrong type is refused.
  const types = new Map(flows.map((flow) => [flow.slug, flow.type]));
  for (const [centre, locate] of located) {
    const problems: FlowProblem[] = [];
    checkBlockFlows(centre.data, types, (segments, message) =>
      problems.push({ path: formatPath(segments), ...locate(segments), message }),
    );
    if (!problems.length) continue;
    errors.push({ file: centre.file, message: describeProblems(problems), problems });
    flows.splice(flows.indexOf(centre), 1);
  }
  errors.sort((a, b) => a.file.localeCompare(b.file));
  return { flows, errors, warnings };
}

/** What a text field holding what cannot be stored is told; the translations import says the same of such a target. */
export const UNSTORABLE_TEXT =
  'holds a NUL character (\\0) or an unpaired surrogate (such as \\uD800), which cannot be stored';

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
    return {
      problems: [{ path: '', ...at(error.pos[0]), message: `bad YAML: ${error.message.split('\n')[0]}` }],
      warnings: [],
      locate,
    };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return {
      problems: [
        {
          path: '',
          line: 1,
          column: 1,
          message: `bad YAML: ${error instanceof Error ? error.message : String(error)}`,
        },
      ],
      warnings: [],
      locate,
    };
  }
  const problems: FlowProblem[] = [];
  const warnings: FlowProblem[] = [];
  const reportTo =
    (list: FlowProblem[]): Report =>
    (segments, message, key) =>
      list.push({
        path: formatPath(key === undefined ? segments : [...segments, key]),
        ...locate(segments, key),
        message,
      });
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
      ...(flow.goal ? { goal: goalOf(flow.goal) } : {}),
      ...(flow.schedule && (flow.schedule.start || flow.schedule.end) ? { schedule: scheduleOf(flow.schedule) } : {}),
      ...(flow.ignoreLimits ? { ignoreLimits: true } : {}),
      // The start rules are the page's to check: they travel with the content.
      // A resource centre has no steps; served with `steps: []`, every path that reads steps reads none.
      data: withButtonObjects({
        ...flow.data,
        ...(flow.data.steps ? {} : { steps: [] }),
        ...(flow.startWhen ? { startWhen: flow.startWhen } : {}),
      }) as FlowData,
      ...(flow.translations && Object.keys(flow.translations).length ? { translations: flow.translations } : {}),
    },
    problems,
    warnings,
    locate,
  };
}

/** A checked schedule with its moments in epoch milliseconds; a side left out is open. */
const scheduleOf = ({ start, end }: FlowSchedule): NonNullable<FlowDefinition['schedule']> => ({
  ...(start ? { start } : {}),
  ...(end ? { end } : {}),
  startMs: start ? dateTimeMs(start) : Number.NEGATIVE_INFINITY,
  endMs: end ? dateTimeMs(end) : Number.POSITIVE_INFINITY,
});

/**
 * Frigade's flat button keys (`primaryButtonTitle`, `…Uri`, `…UriTarget`, and the secondary's) as the button objects our
 * elements draw, where a step has no object of its own: its object wins, as in Frigade's SDKs. A flat secondary button
 * completes the step, as Frigade's does. The flat keys stay, so Frigade's SDKs read the step as it was written.
 */
function withButtonObjects<Data extends { steps?: unknown }>(data: Data): Data {
  if (
    !Array.isArray(data.steps) ||
    !data.steps.some((step) => isObject(step) && (step.primaryButtonTitle || step.secondaryButtonTitle))
  )
    return data;
  const button = (step: Record<string, unknown>, which: 'primary' | 'secondary') => {
    const title = step[`${which}ButtonTitle`];
    if (typeof title !== 'string' || step[`${which}Button`] !== undefined) return {};
    const uri = step[`${which}ButtonUri`];
    const target = step[`${which}ButtonUriTarget`];
    return {
      [`${which}Button`]: {
        title,
        ...(which === 'secondary' ? { action: 'step.complete' } : {}),
        ...(uri === undefined ? {} : { uri }),
        ...(target === undefined ? {} : { target }),
      },
    };
  };
  const steps = (data.steps as unknown[]).map((step) =>
    isObject(step) ? { ...step, ...button(step, 'primary'), ...button(step, 'secondary') } : step,
  );
  return { ...data, steps };
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
