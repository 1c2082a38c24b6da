// registerElements defines what the table of elements lists, each tag with its class, and nothing more.
import { describe, expect, it } from 'vitest';
import { ELEMENT_TABLE } from '../../src/components/elements.js';
import * as classes from '../../src/components/classes.js';
import { ELEMENTS, registerElements } from '../../src/components/register.js';
import * as sdk from '../../src/index.js';

describe('registerElements', () => {
  it('defines every element of the table with its class', () => {
    expect(Object.keys(ELEMENTS)).toEqual(ELEMENT_TABLE.map((row) => row.tag));
    // A registry of its own (not the page's, so auto-mount does not start), one element already in it.
    const defined = new Map<string, CustomElementConstructor>([['onboarding-card', HTMLElement]]);
    const registry = {
      get: (tag: string) => defined.get(tag),
      define: (tag: string, element: CustomElementConstructor) => void defined.set(tag, element),
    };
    sdk.registerElements(registry as CustomElementRegistry);
    expect(defined.get('onboarding-card')).toBe(HTMLElement);
    defined.delete('onboarding-card');
    sdk.registerElements(registry as CustomElementRegistry);
    expect([...defined.keys()].sort()).toEqual(ELEMENT_TABLE.map((row) => row.tag));
    for (const { tag, className } of ELEMENT_TABLE) {
      expect(ELEMENTS[tag]).toBe(classes[className]);
      expect(defined.get(tag), tag).toBe(classes[className]);
      expect(sdk[className]).toBe(classes[className]);
    }
    expect(sdk.registerElements).toBe(registerElements);
  });
});
