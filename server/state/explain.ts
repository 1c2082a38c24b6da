// Why each flow is or is not shown to a user now (GET /v1/users/{userId}/explain): the rules of a state answer, each with its verdict and the values it read.
import type {
  ExplainReason,
  ExplainResponse,
  FlowExplanation,
  Properties,
  TargetingClause,
} from '../../src/api/wire.js';
import type { CatalogFlow, CatalogVersion, FlowCatalog } from '../flows/catalog.js';
import { HttpProblem } from '../shared/problem.js';
import type { Queryable } from '../storage/store.js';
import { comparisonOperands, topLevelClauses } from '../targeting/clauses.js';
import { evaluateCel } from '../targeting/cel.js';
import { computeCollections, type HoldCause } from './collections.js';
import { deriveFlowState, deriveFlowStates, eligibility, inSchedule } from './derive.js';
import { computeExperiments } from './experiments.js';
import { computeLimits } from './limits.js';
import { comesBackAt } from './reshow.js';
import { loadUserSnapshot, type UserSnapshot } from './snapshot.js';

/** How many of the user's latest events the explanation lists. */
export const RECENT_EVENTS = 50;

/**
 * Explains every flow of the catalog (or one) for a user (read with a group, when given) at `now`. It reads the user as a state answer does and asks
 * the same functions that decide that answer, without recording anything: `shown` is taken from the state answer
 * itself, and each reason from the step of it that applies the rule.
 */
export async function explainUser(
  db: Queryable,
  catalog: FlowCatalog,
  userId: string,
  { flowSlug, groupId, now = new Date() }: { flowSlug?: string; groupId?: string; now?: Date } = {},
): Promise<ExplainResponse> {
  const version = catalog.current();
  if (flowSlug !== undefined && !version.bySlug.has(flowSlug))
    throw new HttpProblem(404, `There is no flow with slug "${flowSlug}".`, 'flowSlug');
  const snapshot = await loadUserSnapshot(db, userId, groupId, version, { now });
  const resolved = snapshot.cel.user.id;
  const answer = deriveFlowStates(version, snapshot, { now, content: 'none' });
  const visible = new Map(answer.eligibleFlows.map((flow) => [flow.flowSlug, flow.$state.visible]));
  // Why each collection holds its flows back, worked out once for the answer, by the pass that decides it.
  const causes = new Map<string, HoldCause[]>();
  if (version.collections.length)
    computeCollections(version, snapshot, now, shownByExperiments(version, snapshot), causes);
  const flows = (flowSlug === undefined ? version.flows : [version.bySlug.get(flowSlug)!]).map((flow) =>
    explainFlow(version, snapshot, flow, now, visible.get(flow.flow.slug) === true, causes),
  );
  return {
    userId: resolved,
    exists: snapshot.exists,
    at: now.toISOString(),
    user: {
      properties: snapshot.cel.user.properties,
      groups: snapshot.cel.user.groups,
      recentEvents: await recentEvents(db, resolved),
    },
    flows,
  };
}

async function recentEvents(db: Queryable, userId: string): Promise<ExplainResponse['user']['recentEvents']> {
  const rows = await db.query<{ event: string; properties: Properties; created_at: Date | string }>(
    'SELECT event, properties, created_at FROM user_events WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2',
    [userId, RECENT_EVENTS],
  );
  return rows.map((row) => ({
    event: row.event,
    properties: row.properties,
    createdAt: new Date(row.created_at).toISOString(),
  }));
}

function explainFlow(
  version: CatalogVersion,
  snapshot: UserSnapshot,
  flow: CatalogFlow,
  now: Date,
  shown: boolean,
  causes: ReadonlyMap<string, HoldCause[]>,
): FlowExplanation {
  const reasons: ExplainReason[] = [
    statusReason(flow),
    scheduleReason(flow, now),
    targetingReason(flow, snapshot),
    stateReason(flow, snapshot, now),
    ...collectionReasons(version, flow, causes),
    ...limitReasons(version, snapshot, flow, now),
    ...experimentReasons(version, snapshot, flow),
    startWhenReason(flow),
  ];
  return {
    flowSlug: flow.flow.slug,
    name: flow.flow.name,
    type: flow.flow.type,
    shown,
    heldBy: reasons.find((reason) => !reason.passed)?.rule ?? null,
    reasons,
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

function statusReason(flow: CatalogFlow): ExplainReason {
  const { status } = flow.flow;
  const passed = status === 'ACTIVE';
  return {
    rule: 'status',
    passed,
    detail: passed
      ? 'The flow is live (ACTIVE).'
      : `The flow is ${status}, so it is shown to no one until its status is ACTIVE.`,
    status,
  };
}

function scheduleReason(flow: CatalogFlow, now: Date): ExplainReason {
  const schedule = flow.definition.schedule;
  const start = schedule?.start ?? null;
  const end = schedule?.end ?? null;
  const passed = inSchedule(flow, now);
  let detail: string;
  if (!schedule) detail = 'The flow has no schedule.';
  else if (passed)
    detail = `The flow is inside its schedule${start ? ` (from ${start}` : ' ('}${end ? `${start ? ' ' : ''}until ${end})` : ')'}.`;
  else if (now.getTime() < schedule.startMs)
    detail = `The flow's schedule starts at ${start}; it is not shown before then.`;
  else detail = `The flow's schedule ended at ${end}; it is no longer shown.`;
  return { rule: 'schedule', passed, detail, start, end };
}

/** A CEL value as JSON: whole numbers (BigInt) as numbers, times as ISO text, maps as objects. */
function jsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Map) return Object.fromEntries([...value].map(([key, item]) => [String(key), jsonValue(item)]));
  if (Array.isArray(value)) return value.map(jsonValue);
  if (value && typeof value === 'object' && value.constructor === Object)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, jsonValue(item)]));
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return null;
  return value;
}

const shortJson = (value: unknown) => {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
};

/** A CEL literal: a number, a quoted string, true, false or null. */
const LITERAL = /^(?:-?\d+(?:\.\d+)?u?|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|true|false|null)$/;

function targetingReason(flow: CatalogFlow, snapshot: UserSnapshot): ExplainReason {
  const expression = flow.definition.targetingLogic.trim();
  // The rule as the answer applies it: its compiled predicate (a failure at run time counts as false).
  const passed = flow.targeting(snapshot.cel);
  if (!expression)
    return {
      rule: 'targeting',
      passed,
      detail: 'The flow has no targeting: it is for everyone.',
      expression: '',
      value: true,
      clauses: [],
    };
  const { operator, clauses: parts } = topLevelClauses(expression);
  const clauses = parts.map((part): TargetingClause => {
    const result = evaluateCel(part, snapshot.cel);
    const clause: TargetingClause =
      'error' in result
        ? { expression: part, value: false, error: result.error }
        : { expression: part, value: jsonValue(result.value) };
    const sides = comparisonOperands(part);
    if (sides)
      clause.operands = sides.map((side) => {
        const value = evaluateCel(side, snapshot.cel);
        return { expression: side, value: 'error' in value ? null : jsonValue(value.value) };
      });
    return clause;
  });
  const failing = clauses.filter((clause) => clause.value !== true);
  const why = (clause: TargetingClause) => {
    // The sides that are not literals: what the user's property or count is.
    const read = clause.operands?.filter((operand) => !LITERAL.test(operand.expression)) ?? [];
    return `${clause.expression} is ${clause.error ? `an error (${clause.error})` : shortJson(clause.value)}${
      read.length ? ` (${read.map((o) => `${o.expression} is ${shortJson(o.value)}`).join(', ')})` : ''
    }`;
  };
  let detail: string;
  if (passed) detail = `The user matches the targeting (${expression}).`;
  else if (operator === '||')
    detail = `The user matches none of the targeting's alternatives: ${failing.map(why).join('; ')}.`;
  else if (failing.length) detail = `The user does not match the targeting: ${failing.map(why).join('; ')}.`;
  else detail = `The user does not match the targeting (${expression}).`;
  return { rule: 'targeting', passed, detail, expression, value: passed, clauses };
}

function stateReason(flow: CatalogFlow, snapshot: UserSnapshot, now: Date): ExplainReason {
  const stored = snapshot.flows.get(flow.flow.slug);
  const { $state } = deriveFlowState(flow, snapshot, now);
  const back = comesBackAt(flow, stored);
  const dismissed = Boolean(stored?.skipped) && !stored?.completed;
  const reshowAt = back === undefined ? null : iso(back);
  const passed = !$state.completed && !$state.skipped;
  let detail: string;
  if ($state.completed) detail = 'The user has completed the flow; a completed flow is not shown again.';
  else if ($state.skipped)
    detail = reshowAt
      ? `The user dismissed the flow; it comes back at ${reshowAt}.`
      : 'The user dismissed the flow, and it does not come back.';
  else if (dismissed) detail = 'The user dismissed the flow, and it has come back (reshow).';
  else if ($state.started) detail = 'The user has started the flow and not finished it.';
  else detail = 'The user has not started the flow yet.';
  return {
    rule: 'state',
    passed,
    detail,
    started: $state.started,
    completed: $state.completed,
    dismissed: $state.skipped,
    reshowAt,
  };
}

/** The flows the answer may show (eligible, not held back by an experiment), as the answer works them out. */
function shownByExperiments(version: CatalogVersion, snapshot: UserSnapshot) {
  const eligible = eligibility(snapshot);
  const { holds } = computeExperiments(version, snapshot, eligible);
  return holds ? (flow: CatalogFlow) => eligible(flow) && !holds(flow.flow.slug) : eligible;
}

function collectionReasons(
  version: CatalogVersion,
  flow: CatalogFlow,
  causes: ReadonlyMap<string, HoldCause[]>,
): ExplainReason[] {
  const slug = flow.flow.slug;
  const inCollections = version.collections.filter((collection) => collection.flows.includes(slug));
  if (inCollections.length === 0)
    return [
      {
        rule: 'collection',
        passed: true,
        detail: 'The flow is in no collection.',
        collection: null,
        ahead: null,
        until: null,
      },
    ];
  return inCollections.map((collection): ExplainReason => {
    const cause = causes.get(slug)?.find((held) => held.collection === collection);
    const ahead = cause?.ahead ?? null;
    const until = cause?.until === undefined ? null : iso(cause.until);
    const detail = ahead
      ? `Collection "${collection.id}" shows one flow at a time, and "${ahead}" comes first for this user.`
      : until
        ? `Collection "${collection.id}" is cooling off after the user finished one of its flows, until ${until}.`
        : `Collection "${collection.id}" does not hold this flow back.`;
    return { rule: 'collection', passed: !cause, detail, collection: collection.id, ahead, until };
  });
}

function limitReasons(version: CatalogVersion, snapshot: UserSnapshot, flow: CatalogFlow, now: Date): ExplainReason[] {
  const slug = flow.flow.slug;
  const none = (detail: string): ExplainReason[] => [{ rule: 'limit', passed: true, detail, id: null, until: null }];
  if (flow.definition.ignoreLimits && version.limits.some((limit) => limit.members.has(slug)))
    return none('The flow ignores the global limits (ignoreLimits: true); its first start still counts toward them.');
  const indexes = version.limitsOfFlow.get(slug);
  if (!indexes) return none('No global limit covers this flow.');
  const { until } = computeLimits(version, snapshot, now);
  const started = snapshot.starts?.has(slug) ?? false;
  return indexes.map((index): ExplainReason => {
    const limit = version.limits[index];
    const holding = !started && until[index] > now.getTime();
    const rule = [
      limit.max !== undefined ? `at most ${limit.max} per ${limit.per}` : '',
      limit.minGap ? `at least ${limit.minGap} apart` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const detail = started
      ? `Limit "${limit.id}" (${rule}) does not hold back a flow the user has already started.`
      : holding
        ? `Limit "${limit.id}" (${rule}) holds the flow back: the user was recently shown other flows it covers. It can show from ${iso(until[index])}.`
        : `Limit "${limit.id}" (${rule}) allows the flow now.`;
    return { rule: 'limit', passed: !holding, detail, id: limit.id, until: holding ? iso(until[index]) : null };
  });
}

function experimentReasons(version: CatalogVersion, snapshot: UserSnapshot, flow: CatalogFlow): ExplainReason[] {
  const slug = flow.flow.slug;
  const indexes = version.experimentsOfFlow.get(slug);
  if (!indexes)
    return [
      { rule: 'experiment', passed: true, detail: 'The flow is in no experiment.', experiment: null, variant: null },
    ];
  const view = computeExperiments(version, snapshot, eligibility(snapshot));
  return indexes.map((index): ExplainReason => {
    const experiment = version.experiments[index];
    const variant = view.variants[index] ?? null;
    const passed = view.shownBy[index] === slug;
    const own = experiment.variants.find((item) => item.flow === slug)?.id;
    let detail: string;
    if (experiment.status === 'paused') detail = `Experiment "${experiment.id}" is paused: it shows none of its flows.`;
    else if (experiment.status === 'ended')
      detail = passed
        ? `Experiment "${experiment.id}" has ended with this flow's variant ("${experiment.winner}") as the winner: everyone gets it.`
        : `Experiment "${experiment.id}" has ended${experiment.winner ? ` with "${experiment.winner}" as the winner` : ' without a winner'}: this flow is not shown.`;
    else if (variant === null) detail = `The user is outside the audience of experiment "${experiment.id}".`;
    else if (passed)
      detail = `The user is in variant "${variant}" of experiment "${experiment.id}", which shows this flow.`;
    else
      detail = `The user is in variant "${variant}" of experiment "${experiment.id}"${
        experiment.variants.find((item) => item.id === variant)?.flow
          ? ''
          : ' (a control group, which sees none of its flows)'
      }; this flow is variant "${own}".`;
    // Outside the audience the flow's own targeting already fails: the experiment does not hold it back.
    const holds = experiment.status === 'running' && variant === null ? false : !passed;
    return { rule: 'experiment', passed: !holds, detail, experiment: experiment.id, variant };
  });
}

function startWhenReason(flow: CatalogFlow): ExplainReason {
  const startWhen = flow.definition.data.startWhen ?? null;
  const rules = startWhen
    ? Object.entries(startWhen)
        .map(
          ([key, value]) =>
            `${key} ${typeof value === 'string' || typeof value === 'number' ? value : JSON.stringify(value)}`,
        )
        .join(', ')
    : '';
  return {
    rule: 'startWhen',
    passed: true,
    detail: startWhen
      ? `In the page, the flow opens only when its start rules hold (${rules}); the page decides them, and Onboarding.debug() there tells what it waits for.`
      : 'The flow has no start rules: it opens as soon as the page has it.',
    startWhen,
  };
}
