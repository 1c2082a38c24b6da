// CEL targeting: compiles each expression once per flow version and evaluates it; runtime errors count as false.
import { Environment } from '@marcbachmann/cel-js';

export interface CelEntity {
  id: string;
  isGuest: boolean;
  createdAt: Date | null;
  properties: Record<string, unknown>;
  events: Record<string, number>;
  groups: string[];
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

const environment = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false });

/** Parsed programs by source text: a catalog often repeats a rule ("pro users") across many flows. */
const programs = new Map<string, ReturnType<Environment['parse']>>();
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
    programs.set(text, evaluate);
  }
  const program = evaluate;
  return (context) => {
    let memo = results.get(context);
    if (!memo) results.set(context, (memo = new Map()));
    let result = memo.get(text);
    if (result === undefined) {
      try {
        result = program(context as unknown as Record<string, unknown>) === true;
      } catch (error) {
        onRuntimeError(error);
        result = false;
      }
      memo.set(text, result);
    }
    return result;
  };
}

export function emptyEntity(): CelEntity {
  return { id: '', isGuest: false, createdAt: null, properties: {}, events: {}, groups: [] };
}
