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

export interface CelContext {
  user: CelEntity;
  group: CelEntity;
  flows: Record<string, { status: FlowStatusName; steps: Record<string, { status: string; data: unknown }> }>;
  now: Date;
}

export type Predicate = (context: CelContext) => boolean;

const environment = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false });

/** Parses `source` or throws an Error whose message says what is wrong. An empty source always holds. */
export function compileExpression(source: string | undefined, onRuntimeError: (error: unknown) => void): Predicate {
  const text = source?.trim();
  if (!text) return () => true;
  const evaluate = environment.parse(text);
  return (context) => {
    try {
      return evaluate(context as unknown as Record<string, unknown>) === true;
    } catch (error) {
      onRuntimeError(error);
      return false;
    }
  };
}

export function emptyEntity(): CelEntity {
  return { id: '', isGuest: false, createdAt: null, properties: {}, events: {}, groups: [] };
}
