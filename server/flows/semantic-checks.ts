// What the flow schema cannot say about a flow file: unique ids, choices where needed, fields, CEL that compiles, reshow,
// schedule and start rules, translations; and the warnings for text a listed locale lacks.
import { FLOW_TYPE_ALIASES, type FlowTranslation, type FlowType } from '../../src/api/wire.js';
import { compileExpression, eventCallsOf } from '../targeting/cel.js';
import { MAX_EVENT_WINDOW_MS } from '../targeting/event-window-calls.js';
import { parseDuration } from './durations.js';
import { checkNpsPoints, checkStepFields, type Report } from './fields.js';
import { dateTimeMs, dateTimeProblem, pagePatternProblem } from './formats.js';
import { formatPath, type PathSegment } from './schema.js';
import { checkTranslations, missingText } from './translations.js';

/** The flow type a file's `type` names: ours, or the one a Frigade name stands for (NPS_SURVEY is a SURVEY). */
export function typeNamed(name: unknown): FlowType | undefined {
  if (typeof name !== 'string') return undefined;
  return Object.hasOwn(FLOW_TYPE_ALIASES, name)
    ? FLOW_TYPE_ALIASES[name as keyof typeof FLOW_TYPE_ALIASES]
    : (name as FlowType);
}

/**
 * What the schema cannot say: unique step and field ids, choices where a kind needs them, fields (server/flows/fields.ts),
 * CEL that compiles, and translations that name what exists and keep its variables (server/flows/translations.ts). `warn` takes what loads but our elements do not draw.
 */
export function checkSemantics(value: unknown, add: Report, warn: Report): void {
  if (!isObject(value)) return;
  const type = typeNamed(value.type);
  checkExpression(value.targetingLogic, ['targetingLogic'], add);
  checkReshow(value.reshow, add);
  checkGoalWindow(value.goal, add);
  checkSchedule(value.schedule, add);
  checkStartWhen(value.startWhen, add);
  const data = value.data;
  if (!isObject(data)) return;
  checkExpression(data.completionCriteria, ['data', 'completionCriteria'], add);
  if (type === 'SURVEY' && isObject(data.props)) checkNpsPoints(data.props.options, ['data', 'props', 'options'], add);
  if (type === 'RESOURCE_CENTER') checkBlocks(data.blocks, add);
  const stepIds = new Map<string, number>();
  // A resource centre has no steps; its translations are checked all the same.
  for (const [index, step] of (Array.isArray(data.steps) ? data.steps : []).entries()) {
    if (!isObject(step)) continue;
    const where: PathSegment[] = ['data', 'steps', index];
    if (typeof step.id === 'string') {
      const first = stepIds.get(step.id);
      if (first !== undefined) add([...where, 'id'], `duplicate step id "${step.id}" (also data.steps[${first}])`);
      else stepIds.set(step.id, index);
    }
    for (const key of ['completionCriteria', 'startCriteria', 'visibilityCriteria'])
      checkExpression(step[key], [...where, key], add);
    if (type === 'SURVEY' && step.type !== undefined && step.fields !== undefined) {
      add(
        [...where, 'type'],
        'a survey step asks by `type` or by `fields`, not both: with fields, each field is a question (an nps score is `{ id, type: nps }`)',
      );
    } else if (type === 'SURVEY' && (step.type === 'single' || step.type === 'multiple') && !hasItems(step.options)) {
      add([...where, 'type'], `a "${step.type}" question needs options: a list of { value, label }`);
    }
    if (type === 'FORM' || type === 'SURVEY') checkStepFields(step, where, add, warn);
  }
  checkTranslations(value, add);
}

/**
 * A resource centre's blocks: unique ids and `visibleWhen` CEL that compiles (event-window rules included). What
 * needs the folder's other flows (the slugs its blocks name, and their types) is checked by checkBlockFlows.
 */
function checkBlocks(blocks: unknown, add: Report): void {
  if (!Array.isArray(blocks)) return;
  const ids = new Map<string, number>();
  for (const [index, block] of blocks.entries()) {
    if (!isObject(block)) continue;
    const where: PathSegment[] = ['data', 'blocks', index];
    if (typeof block.id === 'string') {
      const first = ids.get(block.id);
      if (first !== undefined) add([...where, 'id'], `duplicate block id "${block.id}" (also data.blocks[${first}])`);
      else ids.set(block.id, index);
    }
    checkExpression(block.visibleWhen, [...where, 'visibleWhen'], add);
  }
}

/** The flow slugs a resource centre's blocks name, each with where it is and the flow type it must have (if any). */
export function blockFlowSlugs(data: unknown): Array<{ slug: string; segments: PathSegment[]; expected?: FlowType }> {
  const found: Array<{ slug: string; segments: PathSegment[]; expected?: FlowType }> = [];
  if (!isObject(data) || !Array.isArray(data.blocks)) return found;
  for (const [index, block] of data.blocks.entries()) {
    if (!isObject(block)) continue;
    const where: PathSegment[] = ['data', 'blocks', index];
    const type = String(block.type);
    if (type === 'checklist' && typeof block.flow === 'string')
      found.push({ slug: block.flow, segments: [...where, 'flow'], expected: 'CHECKLIST' });
    if ((type === 'flows' || type === 'announcements') && Array.isArray(block.flows)) {
      for (const [at, slug] of block.flows.entries()) {
        if (typeof slug !== 'string') continue;
        const expected = type === 'announcements' ? 'ANNOUNCEMENT' : undefined;
        found.push({ slug, segments: [...where, 'flows', at], expected });
      }
    }
    if (type === 'links' && Array.isArray(block.links)) {
      for (const [at, link] of block.links.entries())
        if (isObject(link) && typeof link.flow === 'string')
          found.push({ slug: link.flow, segments: [...where, 'links', at, 'flow'] });
    }
  }
  return found;
}

/**
 * A resource centre's flow slugs against the flows loaded from the same folder (`types`, by slug): each must name
 * one, a `checklist` block a CHECKLIST and an `announcements` block ANNOUNCEMENTs.
 */
export function checkBlockFlows(data: unknown, types: ReadonlyMap<string, FlowType>, add: Report): void {
  for (const { slug, segments, expected } of blockFlowSlugs(data)) {
    const type = types.get(slug);
    if (type === undefined) add(segments, `unknown flow slug "${slug}": no flow file in this folder defines it`);
    else if (expected && type !== expected) {
      const takes =
        expected === 'CHECKLIST'
          ? 'a checklist block takes a CHECKLIST'
          : 'an announcements block takes ANNOUNCEMENT flows only';
      add(segments, `flow "${slug}" is a ${type}; ${takes}`);
    }
  }
}

/** A warning at each source text a listed locale lacks (an exact translation only: `--locales fr-CA` asks for fr-CA's own). */
export function warnMissingText(file: Record<string, unknown>, locales: readonly string[], warn: Report): void {
  const translations = isObject(file.translations) ? file.translations : {};
  for (const locale of locales) {
    const translation = isObject(translations[locale]) ? (translations[locale] as FlowTranslation) : undefined;
    for (const slot of missingText(file.data, translation)) {
      warn(['data', ...slot.source], `no "${locale}" translation (translations.${locale}.${formatPath(slot.key)})`);
    }
  }
}

/** `reshow.after` a duration above 0 and `reshow.times` a whole number (the schema checks the rest). */
/** A schedule's `end` after its `start` (the schema checks that each is a date-time with an offset). */
function checkSchedule(schedule: unknown, add: Report): void {
  if (!isObject(schedule) || typeof schedule.start !== 'string' || typeof schedule.end !== 'string') return;
  if (dateTimeProblem(schedule.start) || dateTimeProblem(schedule.end)) return;
  if (dateTimeMs(schedule.end) <= dateTimeMs(schedule.start))
    add(['schedule', 'end'], `the end (${schedule.end}) must be after the start (${schedule.start})`);
}

function checkReshow(reshow: unknown, add: Report): void {
  if (!isObject(reshow)) return;
  const { after, times } = reshow;
  if (typeof after === 'string' && !((parseDuration(after) ?? 0) > 0)) {
    add(
      ['reshow', 'after'],
      `bad duration ${JSON.stringify(after)}; expected a whole number above 0 and a unit (s, m, h, d or w), such as 48h or 7d`,
    );
  }
  if (typeof times === 'number' && !Number.isInteger(times))
    add(['reshow', 'times'], `expected a whole number, 1 or more, got ${times}`);
}

/** `goal.within` a duration above 0 (the schema checks the rest). */
function checkGoalWindow(goal: unknown, add: Report): void {
  if (!isObject(goal) || typeof goal.within !== 'string' || (parseDuration(goal.within) ?? 0) > 0) return;
  add(
    ['goal', 'within'],
    `bad duration ${JSON.stringify(goal.within)}; expected a whole number above 0 and a unit (s, m, h, d or w), such as 7d`,
  );
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
    add(
      ['startWhen', 'delay'],
      `bad duration ${JSON.stringify(delay)}; expected a whole number and a unit (ms, s, m, h, d or w), such as 500ms or 3s`,
    );
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
      add(
        segments,
        `${call.scope}.eventCount('${call.event}', …): the window is over 100 years (876600h), the longest there is; for "ever", use ${call.scope}.events`,
      );
    }
  }
}

function hasItems(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
