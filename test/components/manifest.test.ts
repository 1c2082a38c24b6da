import { describe, expect, it } from 'vitest';
// @ts-expect-error plain .mjs build script without types
import { buildManifest } from '../../scripts/custom-elements-manifest.mjs';

interface Declaration {
  tagName: string;
  summary: string;
  events: Array<{ name: string }>;
  cssParts: Array<{ name: string }>;
  cssProperties: Array<{ name: string }>;
  attributes: Array<{ name: string }>;
  members: Array<{ name: string }>;
  slots: Array<{ name: string }>;
}

describe('custom-elements.json', () => {
  const manifest = buildManifest() as {
    schemaVersion: string;
    modules: Array<{ path: string; declarations: Declaration[]; exports: Array<{ kind: string; name: string }> }>;
  };
  const declarations = manifest.modules.flatMap((module) => module.declarations);
  const byTag = Object.fromEntries(declarations.map((d) => [d.tagName, d]));

  it('describes all twelve elements from their JSDoc headers', () => {
    expect(manifest.schemaVersion).toBe('2.1.0');
    expect(Object.keys(byTag).sort()).toEqual([
      'onboarding-announcement',
      'onboarding-banner',
      'onboarding-card',
      'onboarding-checklist',
      'onboarding-collection',
      'onboarding-flow',
      'onboarding-form',
      'onboarding-hint',
      'onboarding-resource-center',
      'onboarding-survey',
      'onboarding-tooltip',
      'onboarding-tour',
    ]);
    // The collection draws its current flow through <onboarding-flow>: it has no flow, events or strings of its own.
    expect(byTag['onboarding-collection'].summary.length).toBeGreaterThan(20);
    expect(byTag['onboarding-collection'].attributes.map((a) => a.name)).toEqual(
      expect.arrayContaining(['collection', 'theme']),
    );
    for (const declaration of declarations.filter((d) => d.tagName !== 'onboarding-collection')) {
      expect(declaration.summary.length).toBeGreaterThan(20);
      // The resource centre runs no action of its own flow: it opens, closes, and starts other flows.
      expect(declaration.events.map((e) => e.name)).toContain(
        declaration.tagName === 'onboarding-resource-center' ? 'onboarding-show' : 'onboarding-action',
      );
      expect(declaration.cssParts.length).toBeGreaterThan(0);
      expect(declaration.cssProperties.every((p) => p.name.startsWith('--onboarding-'))).toBe(true);
      expect(declaration.attributes.map((a) => a.name)).toEqual(expect.arrayContaining(['flow', 'theme']));
      expect(declaration.members.map((m) => m.name)).toEqual(
        expect.arrayContaining(['currentFlow', 'currentStep', 'strings', 'variables']),
      );
    }
  });

  it('lists the parts, events, slots and attributes each element documents', () => {
    expect(byTag['onboarding-announcement'].events.map((e) => e.name)).toEqual([
      'onboarding-action',
      'onboarding-show',
      'onboarding-hide',
      'onboarding-step-change',
    ]);
    expect(byTag['onboarding-tour'].cssParts.map((p) => p.name)).toEqual(
      expect.arrayContaining(['base', 'arrow', 'spotlight', 'overlay']),
    );
    expect(byTag['onboarding-hint'].cssParts.map((p) => p.name)).toEqual(
      expect.arrayContaining(['beacon', 'base', 'arrow', 'close-button']),
    );
    expect(byTag['onboarding-tooltip'].events.map((e) => e.name)).toContain('onboarding-target-missing');
    expect(byTag['onboarding-checklist'].attributes.map((a) => a.name)).toContain('sequential');
    expect(byTag['onboarding-banner'].attributes.map((a) => a.name)).toContain('placement');
    expect(byTag['onboarding-flow'].slots).toEqual([expect.objectContaining({ name: '' })]);
    expect(manifest.modules[0].exports).toContainEqual({
      kind: 'custom-element-definition',
      name: 'onboarding-announcement',
      declaration: expect.anything(),
    });
  });
});
