// A flow as the service serves it: the constant JSON parts of its state answers, and the markup snippet of its element.
import type { FlowType } from '../../src/api/wire.js';
import type { FlowDefinition } from './definitions.js';

/** A flow's constant parts of a state answer, serialised once per version. */
export interface FlowJson {
  /** `{"flowSlug":…,"flowName":…,"flowType":…,"data":{` */
  head: string;
  /** The YAML `data` fields other than steps, each followed by a comma (or ''). */
  fields: string;
  /** Per step: its definition fields other than `id`, each followed by a comma (or ''). */
  stepFields: string[];
  /** Per step: `"id":"…","$state":` */
  stepIds: string[];
  /** `,"version":n,"contentHash":"…"}` */
  tail: string;
  /**
   * The whole flow in the answer of a user who has stored nothing in it, by the outcome of its CEL
   * conditions and whether content is included: most users have touched most flows not at all.
   */
  untouched: Map<number, Buffer>;
  /**
   * With content, the constant bytes between a touched flow's step states, made on first use: before the first step's
   * `$state`, then before each next one (the steps' content among them); without steps, up to the `steps` list's end.
   */
  contentParts?: Buffer[];
  /**
   * A resource centre whose blocks are shown on conditions: this JSON with only the blocks one user sees, by which
   * (see visibleJson in catalog.ts); each has its own untouched answers and content parts.
   */
  byBlocks?: Map<string, FlowJson>;
}

/** JSON object members without the braces, each followed by a comma; '' for none. */
const members = (value: Record<string, unknown>): string => {
  const text = JSON.stringify(value).slice(1, -1);
  return text ? `${text},` : '';
};

export function flowJson(
  definition: FlowDefinition,
  version: number,
  hash: string,
  name: string,
  type: string,
): FlowJson {
  const { steps, ...fields } = definition.data;
  return {
    head: `{"flowSlug":${JSON.stringify(definition.slug)},"flowName":${JSON.stringify(name)},"flowType":${JSON.stringify(type)},"data":{`,
    fields: members(fields),
    stepFields: steps.map(({ id: _id, ...stepFields }) => members(stepFields)),
    stepIds: steps.map((step) => `"id":${JSON.stringify(step.id)},"$state":`),
    tail: `,"version":${version},"contentHash":"${hash}"}`,
    untouched: new Map(),
  };
}

const ELEMENT_BY_TYPE: Record<FlowType, string> = {
  ANNOUNCEMENT: 'onboarding-announcement',
  BANNER: 'onboarding-banner',
  CARD: 'onboarding-card',
  CHECKLIST: 'onboarding-checklist',
  CUSTOM: 'onboarding-flow',
  FORM: 'onboarding-form',
  HINT: 'onboarding-hint',
  RESOURCE_CENTER: 'onboarding-resource-center',
  SURVEY: 'onboarding-survey',
  TOOLTIP: 'onboarding-tooltip',
  TOUR: 'onboarding-tour',
};

export function codeSnippetFor(slug: string, type: FlowType): string {
  const element = ELEMENT_BY_TYPE[type];
  return `<${element} flow="${slug}"></${element}>`;
}
