// Flow definitions: reads a folder of YAML files, one flow per file, and validates each into a FlowDefinition.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { BUTTON_ACTIONS, FLOW_STATUSES, FLOW_TYPES, type FlowData, type FlowStatus, type FlowType } from '../../src/api/wire.js';
import { findUnstorableText } from '../http/json-guard.js';
import { compileExpression } from '../targeting/cel.js';
import { WEBHOOK_FILES } from '../webhooks/config.js';

export interface FlowDefinition {
  file: string;
  slug: string;
  name: string;
  type: FlowType;
  status: FlowStatus;
  targetingLogic: string;
  data: FlowData;
}

export interface FlowFileError {
  file: string;
  message: string;
}

const SLUG = /^[a-z0-9][a-z0-9_-]{0,127}$/i;

/** Reads every `.yaml`/`.yml` file in `dir` but webhooks.yaml. Invalid files are reported, and the others still load. */
export function readFlowDirectory(dir: string): { flows: FlowDefinition[]; errors: FlowFileError[] } {
  const flows: FlowDefinition[] = [];
  const errors: FlowFileError[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    throw new Error(`cannot read the flow folder ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}); pass an existing folder with --flows`);
  }
  // webhooks.yaml beside the flows configures webhooks (server/webhooks/config.ts); it is not a flow.
  const files = names.filter((name) => /\.ya?ml$/i.test(name) && !WEBHOOK_FILES.includes(name.toLowerCase())).sort();
  const seen = new Map<string, string>();
  for (const file of files) {
    try {
      const flow = parseFlowDefinition(file, readFileSync(join(dir, file), 'utf8'));
      const other = seen.get(flow.slug);
      if (other) throw new Error(`duplicate slug "${flow.slug}" (already defined in ${other})`);
      seen.set(flow.slug, file);
      flows.push(flow);
    } catch (error) {
      errors.push({ file, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return { flows, errors };
}

/** Validates one file's text; throws an Error naming the problem. */
export function parseFlowDefinition(file: string, text: string): FlowDefinition {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    throw new Error(`bad YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  if (!isObject(doc)) throw new Error('bad YAML: the file must hold a mapping with slug, name, type, status and data');
  const unstorable = findUnstorableText(doc);
  if (unstorable !== undefined) {
    throw new Error(`"${unstorable}" holds a NUL character (\\0) or an unpaired surrogate (such as \\uD800), which cannot be stored`);
  }
  const slug = doc.slug;
  if (typeof slug !== 'string' || !SLUG.test(slug)) throw new Error('"slug" must be letters, digits, "-" or "_"');
  if (typeof doc.name !== 'string' || !doc.name) throw new Error('"name" must be a non-empty string');
  if (!FLOW_TYPES.includes(doc.type as FlowType)) {
    throw new Error(`unknown type "${String(doc.type)}"; expected one of ${FLOW_TYPES.join(', ')}`);
  }
  const status = doc.status ?? 'ACTIVE';
  if (!FLOW_STATUSES.includes(status as FlowStatus)) {
    throw new Error(`unknown status "${String(status)}"; expected one of ${FLOW_STATUSES.join(', ')}`);
  }
  const targetingLogic = doc.targetingLogic ?? '';
  if (typeof targetingLogic !== 'string') throw new Error('"targetingLogic" must be a CEL expression string');
  const data = doc.data;
  if (!isObject(data) || !Array.isArray(data.steps)) throw new Error('"data.steps" must be a list of steps');
  const stepIds = new Set<string>();
  for (const [index, step] of data.steps.entries()) {
    if (!isObject(step) || typeof step.id !== 'string' || !step.id) {
      throw new Error(`step ${index + 1} needs a string "id"`);
    }
    if (stepIds.has(step.id)) throw new Error(`duplicate step id "${step.id}"`);
    stepIds.add(step.id);
    for (const key of ['primaryButton', 'secondaryButton']) checkButton(`step "${step.id}" ${key}`, step[key]);
  }
  checkExpression('targetingLogic', targetingLogic);
  checkExpression('data.completionCriteria', data.completionCriteria);
  for (const step of data.steps as Record<string, unknown>[]) {
    for (const key of ['completionCriteria', 'startCriteria', 'visibilityCriteria']) {
      checkExpression(`step "${String(step.id)}" ${key}`, step[key]);
    }
  }
  return { file, slug, name: doc.name, type: doc.type as FlowType, status: status as FlowStatus, targetingLogic, data: data as FlowData };
}

function checkButton(where: string, button: unknown): void {
  if (button === undefined || button === null) return;
  if (!isObject(button)) throw new Error(`${where} must be a mapping with title, action, uri and target`);
  const action = button.action;
  if (action !== undefined && action !== false && !(BUTTON_ACTIONS as readonly unknown[]).includes(action)) {
    throw new Error(`${where} has unknown action "${String(action)}"; expected one of ${BUTTON_ACTIONS.join(', ')}, or false`);
  }
}

function checkExpression(where: string, source: unknown): void {
  if (source === undefined || source === null) return;
  if (typeof source !== 'string') throw new Error(`${where} must be a CEL expression string`);
  try {
    compileExpression(source, () => {});
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new Error(`${where} does not compile as CEL: ${reason}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
