// A flows folder as the MCP tools see it: its files listed, a flow found by slug, a flow's text checked against the
// folder it would join, and a checked flow written there, never outside it.
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parse } from 'yaml';
import {
  FLOW_STATUSES,
  FLOW_TYPES,
  type CollectionDefinition,
  type ExperimentDefinition,
  type LimitDefinition,
  type McpCheckFlowResult,
  type McpFileProblem,
  type McpFlowListing,
  type McpListFlowsResult,
  type McpSideFileProblem,
  type McpWriteFlowResult,
} from '../../src/api/wire.js';
import { checkCollectionsText, collectionsFileIn, readCollections } from './collections.js';
import {
  checkFlowText,
  COLLECTION_FILES,
  EXPERIMENT_FILES,
  flowFileNames,
  LIMIT_FILES,
  readFlowDirectory,
  WEBHOOK_FILES,
  type CheckOptions,
  type FlowDefinition,
  type FlowProblem,
} from './definitions.js';
import { checkExperimentsText, experimentsFileIn, readExperiments } from './experiments.js';
import { keepComments } from './keep-comments.js';
import { checkLimitsText, limitsFileIn, readLimits } from './limits.js';
import { FLOW_SCHEMA, formatPath } from './schema.js';
import { checkBlockFlows, isObject, typeNamed } from './semantic-checks.js';

/** A flow slug, as the flow schema writes it. */
export const SLUG_PATTERN = new RegExp(FLOW_SCHEMA.properties.slug.pattern);
/** Files of the folder that are not flows, whatever a tool is asked. */
const NOT_FLOWS = [...WEBHOOK_FILES, ...COLLECTION_FILES, ...EXPERIMENT_FILES, ...LIMIT_FILES];

/** Input a tool refuses: its message is the reason the agent reads. */
export class BadInput extends Error {}

/** A problem as the tools answer it: the "did you mean" of its message, when it has one, as a field of its own. */
export function toolProblem(problem: FlowProblem): McpFileProblem {
  const guess = /\(did you mean "([^"]*)"\?\)/.exec(problem.message)?.[1];
  return {
    line: problem.line,
    column: problem.column,
    path: problem.path,
    message: problem.message,
    ...(guess === undefined ? {} : { didYouMean: guess }),
  };
}

/** The folder's flow files, in name order. */
const flowFiles = (dir: string): string[] => flowFileNames(readdirSync(dir));

/** What can be read of a flow file that does not load: its top-level strings. */
function rawFields(text: string): Record<string, unknown> {
  try {
    const value: unknown = parse(text, { maxAliasCount: 100 });
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** `list_flows`: every flow file (those that do not load too, with their problems), and the files beside them. */
export function listFolder(dir: string): McpListFlowsResult {
  const { flows, errors } = readFlowDirectory(dir);
  const listing: McpFlowListing[] = [];
  for (const file of flowFiles(dir)) {
    const flow = flows.find((candidate) => candidate.file === file);
    if (flow) {
      listing.push({
        file,
        slug: flow.slug,
        name: flow.name,
        type: flow.type,
        status: flow.status,
        targeting: flow.targetingLogic,
        valid: true,
        problems: [],
      });
      continue;
    }
    const raw = rawFields(readText(join(dir, file)) ?? '');
    listing.push({
      file,
      slug: text(raw.slug),
      name: text(raw.name),
      type: FLOW_TYPES.find((type) => type === typeNamed(raw.type)) ?? null,
      status: FLOW_STATUSES.find((status) => status === raw.status) ?? null,
      targeting: text(raw.targetingLogic),
      valid: false,
      problems: (errors.find((error) => error.file === file)?.problems ?? []).map(toolProblem),
    });
  }
  const slugs = new Set(flows.map((flow) => flow.slug));
  const problems: McpSideFileProblem[] = [];
  const result: McpListFlowsResult = { flows: listing, problems };
  if (collectionsFileIn(dir)) {
    const { collections, error } = readCollections(dir, slugs);
    if (error) problems.push(...error.problems.map((problem) => ({ file: error.file, ...toolProblem(problem) })));
    else
      result.collections = collections.map(
        ({ id, type, flows: members, coolOff, allowedComponents }): CollectionDefinition => ({
          id,
          type,
          flows: members,
          coolOff,
          allowedComponents,
        }),
      );
  }
  if (experimentsFileIn(dir)) {
    const { experiments, error } = readExperiments(dir, slugs);
    if (error) problems.push(...error.problems.map((problem) => ({ file: error.file, ...toolProblem(problem) })));
    else
      result.experiments = experiments.map(({ id, status, goal, variants, winner }): ExperimentDefinition => ({
        id,
        status,
        goal: { event: goal.event, within: goal.within },
        variants: variants.map((variant) => ({
          id: variant.id,
          ...(variant.flow === undefined ? {} : { flow: variant.flow }),
          weight: variant.weight,
        })),
        ...(winner === undefined ? {} : { winner }),
      }));
  }
  if (limitsFileIn(dir)) {
    const { limits, error } = readLimits(dir, slugs);
    if (error) problems.push(...error.problems.map((problem) => ({ file: error.file, ...toolProblem(problem) })));
    else
      result.limits = limits.map(({ id, types, flows: members, max, per, minGap }): LimitDefinition => ({
        id,
        ...(types ? { types } : {}),
        ...(members ? { flows: members } : {}),
        ...(max === undefined ? {} : { max }),
        ...(per === undefined ? {} : { per }),
        ...(minGap === undefined ? {} : { minGap }),
      }));
  }
  return result;
}

/** `read_flow`: the file of the flow `slug` (one that does not load too, by the slug it names), as written. */
export function readFlow(dir: string, slug: string): { slug: string; file: string; yaml: string } {
  const file = fileOfSlug(dir, slug);
  if (!file) throw new BadInput(`no flow file in the folder has slug "${slug}"; list_flows lists them`);
  const yaml = readText(join(dir, file));
  if (yaml === undefined) throw new BadInput(`${file} cannot be read`);
  return { slug, file, yaml };
}

/** The file of the folder whose flow has `slug`: the one that loads, else the first that names it. */
function fileOfSlug(
  dir: string,
  slug: string,
  loaded: readonly FlowDefinition[] = readFlowDirectory(dir).flows,
): string | undefined {
  const file = loaded.find((flow) => flow.slug === slug)?.file;
  if (file) return file;
  return flowFiles(dir).find((name) => rawFields(readText(join(dir, name)) ?? '').slug === slug);
}

/**
 * Where a flow's file may go: a bare `.yaml` or `.yml` name, not one of the files beside the flows, that resolves inside
 * the folder (a link out of it is refused too). Throws BadInput with the reason.
 */
export function safeFlowFile(dir: string, file: string): string {
  if (file !== basename(file) || file.includes('\\') || file.includes('/'))
    throw new BadInput(`"${file}" is not a file name in the flows folder: give a name such as welcome.yaml, no folder`);
  if (!/^[^.\0][^\0]*\.ya?ml$/i.test(file))
    throw new BadInput(`"${file}" is not a flow file name: it must end in .yaml or .yml and not start with a dot`);
  if (NOT_FLOWS.includes(file.toLowerCase()))
    throw new BadInput(`${file} is not a flow file: the flow tools do not write it`);
  const folder = realpathSync(dir);
  const path = join(folder, file);
  if (dirname(path) !== folder) throw new BadInput(`"${file}" is outside the flows folder`);
  if (existsSync(path) || isLink(path)) {
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      throw new BadInput(`${file} is a link to nothing: the flow tools do not follow it`);
    }
    if (!real.startsWith(folder + sep) || lstatSync(path).isSymbolicLink())
      throw new BadInput(`${file} is a link: the flow tools write only plain files of the flows folder`);
  }
  return file;
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * `check_flow`: the problems and warnings `onboarding-flows check` would print for the folder once `yaml` is its
 * `file` (given, else the file of the flow with the same slug, else `<slug>.yaml`): the file's own, a slug another file
 * has, and what the change would break in the folder (a collection, an experiment or a resource centre naming the flow).
 */
export function checkInFolder(
  dir: string,
  yaml: string,
  options: CheckOptions & { file?: string } = {},
): McpCheckFlowResult {
  const given = options.file === undefined ? undefined : safeFlowFile(dir, options.file);
  const { definition, problems, warnings, locate } = checkFlowText(yaml, { locales: options.locales });
  const named = definition?.slug ?? text(rawFields(yaml).slug);
  const slug = named !== null && SLUG_PATTERN.test(named) ? named : null;
  const folder = readFlowDirectory(dir);
  let file = given ?? (slug === null ? null : (fileOfSlug(dir, slug, folder.flows) ?? `${slug}.yaml`));
  if (file !== null && given === undefined) {
    // `<slug>.yaml` may hold another flow: never replaced by a write that did not name it. One that names no slug
    // loads as no flow, and is replaced.
    const holder = flowFiles(dir).includes(file) ? rawFields(readText(join(dir, file)) ?? '').slug : slug;
    if (typeof holder === 'string' && holder !== slug) {
      problems.push({
        path: 'slug',
        ...locate(['slug']),
        message: `${file} holds the flow "${holder}": give another file name (file) for this one`,
      });
      file = null;
    }
  }
  if (file !== null) safeFlowFile(dir, file);
  if (definition && file !== null) problems.push(...folderProblems(dir, folder.flows, { ...definition, file }, locate));
  const byPlace = (a: FlowProblem, b: FlowProblem) => a.line - b.line || a.column - b.column;
  return {
    valid: problems.length === 0,
    slug,
    file,
    problems: problems.sort(byPlace).map(toolProblem),
    warnings: warnings.map(toolProblem),
  };
}

/** What the folder would refuse once `flow` replaces what its file holds: located at the flow's slug when not in its own text. */
function folderProblems(
  dir: string,
  loaded: readonly FlowDefinition[],
  flow: FlowDefinition,
  locate: ReturnType<typeof checkFlowText>['locate'],
): FlowProblem[] {
  const problems: FlowProblem[] = [];
  const others = loaded.filter((other) => other.file !== flow.file);
  const other = others.find((candidate) => candidate.slug === flow.slug);
  if (other)
    problems.push({
      ...locate(['slug']),
      path: 'slug',
      message: `duplicate slug "${flow.slug}" (already defined in ${other.file})`,
    });
  const before = new Map(loaded.map((candidate) => [candidate.slug, candidate.type]));
  const after = new Map([...others.map((candidate) => [candidate.slug, candidate.type] as const)]);
  if (!other) after.set(flow.slug, flow.type);
  if (flow.type === 'RESOURCE_CENTER')
    checkBlockFlows(flow.data, after, (segments, message) =>
      problems.push({ path: formatPath(segments), ...locate(segments), message }),
    );
  // What named the flow this file held, or names the new one, and loads now, must load after the write.
  const broken = (where: string, found: readonly FlowProblem[], lines = true) => {
    for (const problem of found)
      problems.push({
        path: 'slug',
        ...locate(['slug']),
        message: `this change breaks ${where}${lines ? `:${problem.line}:${problem.column}` : ''}${problem.path ? ` (${problem.path})` : ''}: ${problem.message}`,
      });
  };
  for (const centre of others.filter((candidate) => candidate.type === 'RESOURCE_CENTER')) {
    const now: FlowProblem[] = [];
    const then: FlowProblem[] = [];
    const report = (list: FlowProblem[]) => (segments: readonly (string | number)[], message: string) =>
      list.push({ path: formatPath(segments), line: 1, column: 1, message });
    checkBlockFlows(centre.data, before, report(now));
    checkBlockFlows(centre.data, after, report(then));
    // The centre's own lines are not at hand here: its path says where.
    if (!now.length) broken(centre.file, then, false);
  }
  const sides: Array<
    [string | undefined, typeof checkCollectionsText | typeof checkExperimentsText | typeof checkLimitsText]
  > = [
    [collectionsFileIn(dir), checkCollectionsText],
    [experimentsFileIn(dir), checkExperimentsText],
    [limitsFileIn(dir), checkLimitsText],
  ];
  for (const [side, check] of sides) {
    if (!side) continue;
    const source = readText(join(dir, side));
    if (source === undefined || check(source, new Set(before.keys())).problems.length) continue;
    broken(side, check(source, new Set(after.keys())).problems);
  }
  return problems;
}

/**
 * `write_flow`: writes `yaml` as its file in the folder only when the folder's check passes, carrying over the comments
 * of a file it replaces where the new text has none at the same key path. The file is replaced whole, never half written.
 */
export function writeFlow(dir: string, yaml: string, options: { file?: string } = {}): McpWriteFlowResult {
  const check = checkInFolder(dir, yaml, options);
  if (!check.valid || check.file === null)
    return { ...check, valid: false, written: false, replaced: false, commentsKept: 0 };
  const path = join(realpathSync(dir), check.file);
  const previous = readText(path);
  const kept = previous === undefined ? { text: yaml, kept: 0 } : keepComments(previous, yaml);
  const body = kept.text.endsWith('\n') ? kept.text : `${kept.text}\n`;
  // Written beside it under a name no reader takes for a flow file, then renamed over it: the service's watcher reads
  // either the old file or the new one.
  const temporary = join(dirname(path), `.${check.file}.${randomUUID()}.tmp`);
  try {
    writeFileSync(temporary, body, { flag: 'wx' });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return { ...check, written: true, replaced: previous !== undefined, commentsKept: kept.kept };
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
