// Accessibility in Chromium: axe-core finds no serious or critical violation in any element, in light and dark.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newUserId, openPage, startEnv, type Env } from '../support/browser-pages.js';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const suite = `has(user.properties.suite) && user.properties.suite == 'a11y'`;
const buttons = {
  primaryButton: { title: 'Continue', action: 'flow.forward' as const },
  secondaryButton: { title: 'Later', action: 'flow.skip' as const },
};

let env: Env;

beforeAll(async () => {
  env = await startEnv([
    {
      slug: 'a-banner',
      type: 'BANNER',
      targetingLogic: suite,
      data: { steps: [{ id: 'b', title: 'Banner title', subtitle: 'Banner <a href="/docs">text</a>', ...buttons }] },
    },
    {
      slug: 'a-card',
      type: 'CARD',
      targetingLogic: suite,
      data: { steps: [{ id: 'c', title: 'Card title', subtitle: 'Card text', ...buttons }] },
    },
    {
      slug: 'a-checklist',
      type: 'CHECKLIST',
      targetingLogic: suite,
      data: {
        title: 'Checklist',
        props: { sequential: true },
        steps: [
          { id: 'one', title: 'One', subtitle: 'First', ...buttons },
          { id: 'two', title: 'Two' },
          { id: 'three', title: 'Three', startCriteria: 'false' },
        ],
      },
    },
    {
      slug: 'a-form',
      type: 'FORM',
      targetingLogic: suite,
      data: {
        steps: [
          {
            id: 'f',
            title: 'Form title',
            fields: [
              { id: 'name', type: 'text', label: 'Name', required: true },
              { id: 'mail', type: 'email', label: 'Email' },
              { id: 'bio', type: 'textarea', label: 'Bio' },
              { id: 'n', type: 'number', label: 'Count', min: 1 },
              { id: 'role', type: 'select', label: 'Role', options: [{ value: 'a', label: 'A' }] },
              {
                id: 'size',
                type: 'radio',
                label: 'Size',
                options: [
                  { value: 's', label: 'Small' },
                  { value: 'l', label: 'Large' },
                ],
              },
              { id: 'topics', type: 'checkbox', label: 'Topics', options: [{ value: 'x', label: 'X' }] },
              { id: 'ok', type: 'checkbox', label: 'I agree', required: true },
              // Frigade's shapes: a 0–10 scale and a select of several choices.
              { id: 'score', type: 'nps', label: 'How likely are you to recommend us?', required: 'Pick a score.' },
              {
                id: 'tools',
                type: 'select',
                label: 'Tools',
                multiple: true,
                options: [
                  { value: 'j', label: 'Jira' },
                  { value: 'g', label: 'GitHub' },
                ],
              },
            ],
          },
          { id: 'g', title: 'Second' },
        ],
      },
    },
    {
      slug: 'a-announcement',
      type: 'ANNOUNCEMENT',
      targetingLogic: suite,
      data: {
        props: { priority: 3 },
        steps: [
          { id: 'a', title: 'Announcement', subtitle: 'Text' },
          { id: 'b', title: 'More' },
        ],
      },
    },
    {
      slug: 'a-tour',
      type: 'TOUR',
      targetingLogic: suite,
      data: {
        props: { priority: 2, spotlight: true },
        steps: [
          { id: 't', title: 'Tour step', subtitle: 'Here', selector: '#target' },
          { id: 'u', title: 'Next' },
        ],
      },
    },
    {
      slug: 'a-survey',
      type: 'SURVEY',
      targetingLogic: suite,
      data: {
        props: { priority: 1 },
        steps: [
          { id: 'nps', title: 'How likely are you to recommend us?' },
          { id: 'why', title: 'Why?' },
        ],
      },
    },
    {
      slug: 'a-rating',
      type: 'SURVEY',
      targetingLogic: suite,
      data: {
        steps: [
          { id: 'r', title: 'Rate us', type: 'rating' },
          { id: 'm', title: 'Pick', type: 'multiple', options: [{ value: 'a', label: 'A' }] },
        ],
      },
    },
  ]);
});

afterAll(async () => {
  await env?.close();
});

interface Finding {
  id: string;
  impact: string;
  targets: string[];
}

/** Serious and critical axe violations on the page as it is now. */
async function serious(page: Page): Promise<Finding[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource });
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
}

function openModal(page: Page): Promise<string | undefined> {
  return page.evaluate(
    () =>
      [...document.querySelectorAll('onboarding-announcement, onboarding-tour, onboarding-survey')]
        .find((el) => el.shadowRoot?.querySelector('dialog:modal, :popover-open'))
        ?.getAttribute('flow') ?? undefined,
  );
}

for (const scheme of ['light', 'dark'] as const) {
  describe(`axe-core in Chromium, ${scheme} scheme`, () => {
    it('finds no serious violation in any element type', async () => {
      const userId = newUserId(`a11y-${scheme}`);
      const { page } = await openPage(
        env,
        `/a11y-${scheme}.html`,
        `<h1>Accessibility</h1><button id="target">Target</button>
         <onboarding-banner flow="a-banner"></onboarding-banner>
         <onboarding-card flow="a-card"></onboarding-card>
         <onboarding-checklist flow="a-checklist"></onboarding-checklist>
         <onboarding-form flow="a-form"></onboarding-form>`,
        { userId },
      );
      await page.emulateMedia({ colorScheme: scheme });
      await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'a11y' }), userId);
      await page.locator('onboarding-form [part="base"]').waitFor();
      const findings: Record<string, Finding[]> = {};
      for (const expected of ['a-announcement', 'a-tour', 'a-survey', 'a-rating']) {
        await expect.poll(() => openModal(page)).toBe(expected);
        // Let the entrance animation end: mid-fade colours are not what users read.
        await page.waitForTimeout(400);
        findings[expected] = await serious(page);
        await page.locator(`[flow="${expected}"] [part="close-button"]`).click();
      }
      await expect.poll(() => openModal(page)).toBeUndefined();
      // Show a form error, so its markup is checked too.
      await page.getByLabel('Name').focus();
      await page.getByLabel('Name').blur();
      await page.locator('onboarding-form [part="error"]').first().waitFor();
      findings.inline = await serious(page);
      expect(findings).toEqual({ 'a-announcement': [], 'a-tour': [], 'a-survey': [], 'a-rating': [], inline: [] });
      await page.close();
    });
  });
}
