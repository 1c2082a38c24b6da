// How auto-mount and <onboarding-flow> ask for an element the script tag loads on demand (form, survey, tour).
import type { FlowType } from '../../api/wire.js';
import type { Flow } from '../../flows/flow.js';

/**
 * The element of a flow type: every type but CUSTOM has one named after it (`onboarding-checklist` for CHECKLIST,
 * `onboarding-resource-center` for RESOURCE_CENTER, …).
 */
export const tagOf = (type: FlowType): string => `onboarding-${type.toLowerCase().replace('_', '-')}`;

/** Loads `tag`'s chunk (keeping a modal flow's place in the queue meanwhile); returns whether `tag` loads on demand. */
type ElementLoader = (tag: string, flow?: Flow) => boolean;

let loader: ElementLoader | undefined;

/** Set by the script tag's build (chunks/load-chunks.ts); the ESM build defines every element and sets none. */
export function setElementLoader(load: ElementLoader): void {
  loader = load;
}

/**
 * Asks for an element that is not defined yet, to draw `flow` (for a modal flow, its place in the queue is kept
 * while the element loads). Returns whether the element loads on demand, so whether it is worth waiting for.
 */
export function wantElement(tag: string, flow?: Flow): boolean {
  return loader?.(tag, flow) ?? false;
}
