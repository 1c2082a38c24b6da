// CEL targeting: compiles each expression once per flow version (with eventCount and lastEventAt) and evaluates it; runtime errors count as false.
import { Environment } from '@marcbachmann/cel-js';
import { eventNameUses, type EventNameUse } from './event-names.js';
import { countKey, eventWindowCalls, type EventScope, type EventWindowCall } from './event-window-calls.js';
import { nowChangeInstants } from './now-bounds.js';
import { namesVariable } from './cel-ast.js';

/** Where an entity keeps its events over time: a symbol, which no CEL expression can name, so it adds nothing to `user` or `group`. */
export const EVENT_WINDOWS = Symbol('eventWindows');

/** An entity's loaded events over time (see server/state/event-window-values.ts): counts by countKey, and the latest time of each event. */
export interface EventWindows {
  counts: ReadonlyMap<string, number>;
  last: ReadonlyMap<string, Date>;
}

export interface CelEntity {
  id: string;
  isGuest: boolean;
  createdAt: Date | null;
  properties: Record<string, unknown>;
  events: Record<string, number>;
  groups: string[];
  /**
   * The user's locale: the read's (its `locale` field), else the user property `locale`, as a canonical code (`fr-CA`);
   * '' when neither is one. A group has none.
   */
  locale?: string;
  /** What `eventCount` and `lastEventAt` read; a count or time not loaded reads as none (an entity with no events). */
  [EVENT_WINDOWS]: EventWindows;
}

export type FlowStatusName = 'NOT_STARTED_FLOW' | 'STARTED_FLOW' | 'COMPLETED_FLOW' | 'SKIPPED_FLOW';

/** One flow in the CEL context: `flows['slug'].status`, `flows['slug'].steps['id'].status` and `.data`. */
export interface CelFlow {
  status: FlowStatusName;
  steps: Record<string, { status: string; data: unknown }>;
}

export interface CelContext {
  user: CelEntity;
  group: CelEntity;
  /** A Map, which CEL reads as a map: copying one per read costs a fraction of copying an object of hundreds of keys. */
  flows: Map<string, CelFlow>;
  now: Date;
}

export type Predicate = (context: CelContext) => boolean;

/** What lastEventAt answers without such an event: so `user.lastEventAt('x') > timestamp(…)` is false, and `now - …` is long. */
const NEVER = new Date(0);

function windowsOf(entity: unknown, fn: string): EventWindows {
  const windows = (entity as Partial<CelEntity> | null)?.[EVENT_WINDOWS];
  // The flow file check refuses other receivers; only a macro variable named user or group gets here.
  if (!windows) throw new Error(`${fn} is called on user or group`);
  return windows;
}

const environment = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false })
  .registerFunction({
    name: 'eventCount',
    receiverType: 'map',
    returnType: 'int',
    params: [
      { name: 'event', type: 'string' },
      { name: 'window', type: 'google.protobuf.Duration' },
    ],
    // A duration's number is its milliseconds, as the load's key of the same window (state/event-window-values.ts).
    handler: (entity: unknown, event: string, window: unknown) =>
      BigInt(windowsOf(entity, 'eventCount').counts.get(countKey(event, Number(window))) ?? 0),
    description: 'How many of the event the user (or group) has in the window that ends now.',
  })
  .registerFunction({
    name: 'lastEventAt',
    receiverType: 'map',
    returnType: 'google.protobuf.Timestamp',
    params: [{ name: 'event', type: 'string' }],
    handler: (entity: unknown, event: string) => windowsOf(entity, 'lastEventAt').last.get(event) ?? NEVER,
    description: 'When the user (or group) last had the event; timestamp(0) when never.',
  });

/** Parsed programs by source text: a catalog often repeats a rule ("pro users") across many flows. */
const programs = new Map<string, ReturnType<Environment['parse']>>();
/** The eventCount and lastEventAt calls of each parsed program, by source text. */
const windowCalls = new Map<string, EventWindowCall[]>();
/** What each parsed program reads of `user.events` and `group.events`, by source text. */
const nameUses = new Map<string, Record<EventScope, EventNameUse>>();
/** When each parsed program's value can change as the clock moves, compiled (see now-bounds.ts); null: at any time. */
const nowChanges = new Map<string, NowInstant[] | null>();
/** The source texts whose programs name `group`. */
const groupReaders = new Set<string>();
/** Of those, the ones that name no other variable (`user`, `flows`, `now`): their value follows from the group alone. */
const groupOnlyReaders = new Set<string>();
/** The context's variables besides `group` (each one, or this does not compile). A macro's own variable of one of these names counts too, which only costs speed. */
const OTHER_VARIABLES = Object.keys({ user: true, flows: true, now: true } satisfies Record<
  Exclude<keyof CelContext, 'group'>,
  true
>);

/** Results by source text for each context: within one read, each distinct rule runs once. */
const results = new WeakMap<CelContext, Map<string, boolean>>();

/** Forgets what was evaluated against `context`, after it changed (a transition updates the `flows` map). */
export function contextChanged(context: CelContext): void {
  results.delete(context);
}

/** Parses `source` or throws an Error whose message says what is wrong. An empty source always holds. */
export function compileExpression(source: string | undefined, onRuntimeError: (error: unknown) => void): Predicate {
  const text = source?.trim();
  if (!text) return () => true;
  let evaluate = programs.get(text);
  if (!evaluate) {
    evaluate = environment.parse(text);
    windowCalls.set(text, eventWindowCalls(evaluate.ast));
    nameUses.set(text, eventNameUses(evaluate.ast));
    const { ast } = evaluate;
    if (namesVariable(ast, 'group')) {
      groupReaders.add(text);
      if (!OTHER_VARIABLES.some((name) => namesVariable(ast, name))) groupOnlyReaders.add(text);
    }
    const instants = nowChangeInstants(evaluate.ast);
    nowChanges.set(text, instants ? instants.map(instantProgram) : null);
    programs.set(text, evaluate);
  }
  const program = evaluate;
  return (context) => {
    let memo = results.get(context);
    if (!memo) results.set(context, (memo = new Map<string, boolean>()));
    let result = memo.get(text);
    if (result === undefined) {
      try {
        result = program(context) === true;
      } catch (error) {
        onRuntimeError(error);
        result = false;
      }
      memo.set(text, result);
    }
    return result;
  };
}

/** The eventCount and lastEventAt calls of an expression that compiled (none for an empty one). */
export function eventCallsOf(source: string | undefined): EventWindowCall[] {
  const text = source?.trim();
  return (text && windowCalls.get(text)) || [];
}

/** What an expression that compiled reads of `user.events` and `group.events` (nothing for an empty one). */
export function eventNamesOf(source: string | undefined): Array<Record<EventScope, EventNameUse>> {
  const text = source?.trim();
  const uses = text ? nameUses.get(text) : undefined;
  return uses ? [uses] : [];
}

/** Instants' programs by source text: many rules share one (`user.createdAt + duration('24h')`). */
const instantPrograms = new Map<string, NowInstant>();

function instantProgram(source: string): NowInstant {
  let program = instantPrograms.get(source);
  if (!program) instantPrograms.set(source, (program = environment.parse(source)));
  return program;
}

/** Whether an expression that compiled reads `group` (names the variable anywhere). */
export const readsGroup = (source: string | undefined): boolean => groupReaders.has(source?.trim() ?? '');

/**
 * Whether an expression that compiled reads `group` and nothing else of the context: its value is the same for every
 * user and at any time, given the group's entity (its events over time as loaded).
 */
export const readsOnlyGroup = (source: string | undefined): boolean => groupOnlyReaders.has(source?.trim() ?? '');

/** An instant, evaluated against a read's context: a timestamp (a Date), or an error when it cannot be worked out. */
export type NowInstant = (context: CelContext) => unknown;

/**
 * The instants at which an expression that compiled can change its value as the clock moves ([] when it does not
 * read `now`); null when it reads `now` in a way whose changes cannot be worked out ahead.
 */
export function nowChangesOf(source: string | undefined): NowInstant[] | null {
  const text = source?.trim();
  const instants = text ? nowChanges.get(text) : undefined;
  return instants === undefined ? [] : instants;
}

export const NO_EVENT_WINDOWS: EventWindows = { counts: new Map(), last: new Map() };

export function emptyEntity(): CelEntity {
  return {
    id: '',
    isGuest: false,
    createdAt: null,
    properties: {},
    events: {},
    groups: [],
    [EVENT_WINDOWS]: NO_EVENT_WINDOWS,
  };
}

/** Parsed programs of the explanation's parts of expressions (clauses, operands), by source text. */
const partPrograms = new Map<string, ReturnType<Environment['parse']>>();

/**
 * The value of any CEL expression (not only a boolean) against a read's context, or why it failed: for the
 * explanation, which shows each clause of a targeting rule and each side of a comparison.
 */
export function evaluateCel(source: string, context: CelContext): { value: unknown } | { error: string } {
  try {
    let program = partPrograms.get(source);
    if (!program) {
      if (partPrograms.size >= 1000) partPrograms.clear();
      partPrograms.set(source, (program = environment.parse(source)));
    }
    return { value: program(context) };
  } catch (error) {
    return { error: (error instanceof Error ? error.message : String(error)).split('\n')[0] };
  }
}
