// Which elements the script tag loads and which file beside it defines each, from the table of elements; the script tag's build writes these out from the table (esbuild.config.mjs), so the table itself stays out of dist/onboarding.js.
import { ELEMENT_TABLE } from '../elements.js';

/** Every element's tag: the script tag loads each on demand. */
export const ON_DEMAND: string[] = ELEMENT_TABLE.map(({ tag }) => tag);

/** An element's chunk, `onboarding-<chunk>` (loaded as `.js`): `onboarding-form` for the form, `onboarding-hint` for the tooltip. */
export const fileOf = (tag: string): string => `onboarding-${ELEMENT_TABLE.find((row) => row.tag === tag)!.chunk}`;
