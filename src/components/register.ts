// Registers the custom elements of the table (elements.ts) once and starts auto-mount; importing a component class alone registers nothing.
import * as classes from './classes.js';
import { ELEMENT_TABLE, type ElementRow } from './elements.js';
import { startElements } from './start.js';

/** Every element's class by tag, from the table: the ESM build defines them all (the script tag loads each from its chunk instead). */
export const ELEMENTS: Record<string, CustomElementConstructor> = /* @__PURE__ */ Object.fromEntries(
  ELEMENT_TABLE.map(({ tag, className }) => [tag, classes[className]]),
);

/**
 * Defines every element (skipping names already defined; a bundler splits them as it likes) and, for the page's own
 * registry, starts auto-mount and applies the `nonce` option (see start.ts).
 */
export function registerElements(registry: CustomElementRegistry | undefined = globalThis.customElements): void {
  if (!registry) return;
  if (registry === globalThis.customElements) startElements();
  for (const [name, element] of Object.entries(ELEMENTS)) {
    if (!registry.get(name)) registry.define(name, element);
  }
}

/** Each tag of the table with its class's instance type. */
type ElementTagMap = { [Row in ElementRow as Row['tag']]: InstanceType<(typeof classes)[Row['className']]> };

declare global {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the members come from the table
  interface HTMLElementTagNameMap extends ElementTagMap {}
}
