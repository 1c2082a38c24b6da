// Modal and popover elements in Chromium: announcement, survey (ours and Frigade's shape), the collision rule, auto-mount and <onboarding-flow>.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { SurveyStepReport } from '../../src/api/wire.js';
import { PRIVATE_KEY } from '../support/service.js';
import {
  newUserId,
  openPage,
  recorded,
  recordedData,
  reloadAndSettle,
  serverState,
  startEnv,
  type Env,
} from '../support/browser-pages.js';

let env: Env;
const suite = (name: string) => `has(user.properties.suite) && user.properties.suite == '${name}'`;

beforeAll(async () => {
  env = await startEnv([
    {
      slug: 'news',
      type: 'ANNOUNCEMENT',
      targetingLogic: suite('announce'),
      data: {
        steps: [
          {
            id: 'only',
            title: "What's new",
            subtitle: 'Dark mode is here.',
            primaryButton: { title: 'Got it', action: 'flow.complete' },
          },
        ],
      },
    },
    {
      slug: 'intro',
      type: 'ANNOUNCEMENT',
      targetingLogic: suite('multi'),
      data: {
        steps: [
          { id: 'one', title: 'First' },
          { id: 'two', title: 'Second' },
        ],
      },
    },
    {
      slug: 'nps',
      type: 'SURVEY',
      targetingLogic: suite('survey'),
      data: {
        steps: [
          { id: 'score', title: 'How likely are you to recommend us?' },
          { id: 'why', title: 'What is the main reason?' },
        ],
      },
    },
    {
      // Frigade's NPS survey, as Frigade writes it: steps given as fields, end labels in the flow's props.
      slug: 'nps-frigade',
      type: 'NPS_SURVEY',
      targetingLogic: suite('frigade-survey'),
      data: {
        props: { negativeLabel: 'Not likely at all', positiveLabel: 'Extremely likely' },
        steps: [
          {
            id: 'score',
            title: 'How likely are you to recommend us to a friend?',
            fields: [{ id: 'nps-score', type: 'nps' }],
          },
          {
            id: 'feedback',
            title: 'What could we do better?',
            fields: [{ id: 'feedback', type: 'textarea', placeholder: 'Your feedback' }],
          },
        ],
      },
    },
    {
      slug: 'c-ann',
      type: 'ANNOUNCEMENT',
      targetingLogic: suite('collision'),
      data: { steps: [{ id: 'a', title: 'Collision announcement' }] },
    },
    {
      slug: 'c-tour',
      type: 'TOUR',
      targetingLogic: suite('collision'),
      data: { steps: [{ id: 't', title: 'Collision tour' }] },
    },
    {
      slug: 'c-survey',
      type: 'SURVEY',
      targetingLogic: suite('collision'),
      data: { steps: [{ id: 's', title: 'Collision survey', type: 'rating' }] },
    },
    {
      slug: 'p-ann',
      type: 'ANNOUNCEMENT',
      targetingLogic: suite('priority'),
      data: { steps: [{ id: 'a', title: 'Low priority' }] },
    },
    {
      slug: 'p-survey',
      type: 'SURVEY',
      targetingLogic: suite('priority'),
      data: {
        props: { priority: 5 },
        steps: [
          {
            id: 's',
            title: 'High priority',
            type: 'single',
            options: [
              { value: 'y', label: 'Yes' },
              { value: 'n', label: 'No' },
            ],
          },
        ],
      },
    },
    {
      slug: 'am-a',
      type: 'ANNOUNCEMENT',
      targetingLogic: suite('automount'),
      data: { steps: [{ id: 'a', title: 'Auto A' }] },
    },
    {
      slug: 'am-b',
      type: 'ANNOUNCEMENT',
      targetingLogic: suite('automount'),
      data: { steps: [{ id: 'b', title: 'Auto B' }] },
    },
    {
      slug: 'am-banner',
      type: 'BANNER',
      targetingLogic: suite('automount'),
      data: { steps: [{ id: 'c', title: 'Inline only' }] },
    },
    {
      slug: 'custom-x',
      type: 'CUSTOM',
      targetingLogic: suite('custom'),
      data: {
        steps: [
          { id: 'c1', title: 'Custom <b>title</b>', subtitle: 'Custom text' },
          { id: 'c2', title: 'Second custom' },
        ],
      },
    },
  ]);
});

afterAll(async () => {
  await env?.close();
});

/** The flow slugs whose element shows a modal dialog or an open popover right now. */
function openModals(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('onboarding-announcement, onboarding-tour, onboarding-survey')]
      .filter((el) => el.shadowRoot?.querySelector('dialog:modal, :popover-open'))
      .map((el) => el.getAttribute('flow')!),
  );
}

/** Where focus is: inside which element's shadow root, and on what. */
function focusInside(page: Page): Promise<string> {
  return page.evaluate(() => {
    const host = document.activeElement;
    const inner = host?.shadowRoot?.activeElement;
    return inner
      ? `${host.localName}>${inner.getAttribute('part') ?? inner.localName}`
      : host?.id || host?.localName || '';
  });
}

describe('<onboarding-announcement> in Chromium', () => {
  it('opens as a modal dialog without markup, traps focus, dismisses on Escape and returns focus', async () => {
    const userId = newUserId('announce');
    const { page, errors } = await openPage(
      env,
      '/announce.html',
      '<button id="before">Before</button> <a href="#x" id="other">Other</a>',
      { userId },
    );
    await page.locator('#before').focus();
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'announce' }), userId);
    await expect.poll(() => openModals(page)).toEqual(['news']);
    const title = page.locator('onboarding-announcement [part="title"]');
    expect(await title.textContent()).toBe("What's new");
    // Focus moved into the dialog and Tab never leaves it.
    await expect.poll(() => focusInside(page)).toMatch(/^onboarding-announcement>/);
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      expect(await focusInside(page)).toMatch(/^onboarding-announcement>(close-button|primary-button)$/);
    }
    await page.keyboard.press('Shift+Tab');
    expect(await focusInside(page)).toMatch(/^onboarding-announcement>(close-button|primary-button)$/);
    // The rest of the page is inert while the dialog is open.
    await expect(page.locator('#other').click({ timeout: 500 })).rejects.toThrow();

    await page.keyboard.press('Escape');
    await expect.poll(() => openModals(page)).toEqual([]);
    expect(await focusInside(page)).toBe('before');
    await expect.poll(() => recorded(env, userId, 'news')).toContain('SKIPPED_FLOW:only');
    await reloadAndSettle(page);
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'announce' }), userId);
    await page.waitForTimeout(300);
    expect(await openModals(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('walks a multi-step announcement by keyboard and completes it', async () => {
    const userId = newUserId('multi');
    const { page } = await openPage(env, '/multi.html', '', { userId });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'multi' }), userId);
    await expect.poll(() => openModals(page)).toEqual(['intro']);
    expect(await page.locator('onboarding-announcement [part="counter"]').textContent()).toBe('Step 1 of 2');
    await page.locator('onboarding-announcement [part="primary-button"]').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('onboarding-announcement [part="counter"]').textContent()).toBe('Step 2 of 2');
    expect(await page.locator('onboarding-announcement [part="primary-button"]').textContent()).toBe('Done');
    expect(await page.locator('onboarding-announcement [part="secondary-button"]').textContent()).toBe('Back');
    await page.locator('onboarding-announcement [part="primary-button"]').click();
    await expect.poll(() => openModals(page)).toEqual([]);
    await expect.poll(async () => (await serverState(env, userId, 'intro'))?.$state.completed).toBe(true);
    expect(await recorded(env, userId, 'intro')).toEqual(
      expect.arrayContaining(['COMPLETED_STEP:one', 'COMPLETED_STEP:two']),
    );
    await reloadAndSettle(page);
    expect(await openModals(page)).toEqual([]);
    await page.close();
  });
});

describe('<onboarding-survey> in Chromium', () => {
  it('opens as a corner popover without taking focus, answers NPS by keyboard, then the follow-up', async () => {
    const userId = newUserId('survey');
    const { page, errors } = await openPage(env, '/survey.html', '<input id="typing" aria-label="Typing">', { userId });
    await page.locator('#typing').focus();
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'survey' }), userId);
    await expect.poll(() => openModals(page)).toEqual(['nps']);
    expect(await focusInside(page)).toBe('typing');
    // Announced politely, in a live region outside the popover.
    expect(await page.locator('onboarding-survey [aria-live="polite"]').textContent()).toBe(
      'How likely are you to recommend us?',
    );
    const box = await page.locator('onboarding-survey [part="base"]').boundingBox();
    const viewport = page.viewportSize()!;
    expect(box!.x + box!.width).toBeGreaterThan(viewport.width - 40);
    expect(box!.y + box!.height).toBeGreaterThan(viewport.height - 40);
    expect(await page.locator('onboarding-survey [part="scale-labels"]').textContent()).toContain('Not likely');

    await page.locator('onboarding-survey input[value="0"]').focus();
    for (let i = 0; i < 9; i++) await page.keyboard.press('ArrowRight');
    expect(await page.locator('onboarding-survey input[value="9"]').isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => recordedData(env, userId, 'nps', 'COMPLETED_STEP')).toEqual({ value: 9 });
    const answer = page.locator('onboarding-survey textarea[part="input"]');
    await answer.waitFor();
    await answer.fill('Fast and simple');
    await page.locator('onboarding-survey [part="primary-button"]').click();
    await expect.poll(() => openModals(page)).toEqual([]);
    await expect.poll(async () => (await serverState(env, userId, 'nps'))?.$state.completed).toBe(true);
    expect(await recordedData(env, userId, 'nps', 'COMPLETED_STEP')).toEqual({ value: 'Fast and simple' });
    await reloadAndSettle(page);
    expect(await openModals(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("<onboarding-survey> of Frigade's shape in Chromium", () => {
  it("draws an NPS_SURVEY's fields from the service: the scale by keyboard with the flow's end labels, then the comment, stored and reported by field", async () => {
    const userId = newUserId('frigade-survey');
    const { page, errors } = await openPage(env, '/frigade-survey.html', '<input id="typing" aria-label="Typing">', {
      userId,
    });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'frigade-survey' }), userId);
    await expect.poll(() => openModals(page)).toEqual(['nps-frigade']);
    // The scale is a radio group named by the step's title, the ends under it from the flow's props.
    expect(
      await page.getByRole('radiogroup', { name: 'How likely are you to recommend us to a friend?' }).count(),
    ).toBe(1);
    expect(await page.locator('onboarding-survey [part="scale-labels"] span').allTextContents()).toEqual([
      'Not likely at all',
      'Extremely likely',
    ]);

    await page.locator('onboarding-survey input[value="0"]').focus();
    for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowRight');
    expect(await page.locator('onboarding-survey input[value="7"]').isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => recordedData(env, userId, 'nps-frigade', 'COMPLETED_STEP')).toEqual({ 'nps-score': 7 });
    const answer = page.getByRole('textbox', { name: 'What could we do better?' });
    await answer.waitFor();
    expect(await answer.getAttribute('placeholder')).toBe('Your feedback');
    await answer.fill('Faster exports');
    await page.locator('onboarding-survey [part="primary-button"]').click();
    await expect.poll(() => openModals(page)).toEqual([]);
    // The popover closes at once; the write reaches the service a moment later.
    await expect
      .poll(() => recordedData(env, userId, 'nps-frigade', 'COMPLETED_STEP'))
      .toEqual({ feedback: 'Faster exports' });

    const report = await env.service.call('GET', '/v1/analytics/flows/nps-frigade', { key: PRIVATE_KEY });
    expect(report.body.flow.type).toBe('SURVEY');
    expect(report.body.survey.steps.map((step: SurveyStepReport) => [step.stepId, step.kind, step.responses])).toEqual([
      ['score', 'nps', 1],
      ['feedback', 'text', 1],
    ]);
    expect(report.body.survey.steps[0].distribution[7]).toBe(1);
    expect(report.body.survey.steps[1].comments.map((comment: { value: string }) => comment.value)).toEqual([
      'Faster exports',
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('the modal collision rule in Chromium', () => {
  it('opens announcement, then tour, then survey, never two together', async () => {
    const userId = newUserId('collision');
    const { page } = await openPage(env, '/collision.html', '', { userId });
    await page.evaluate(() => {
      const seen: string[][] = [];
      (window as unknown as { seen: string[][] }).seen = seen;
      // Sample every frame: at no time may two be open.
      const sample = () => {
        seen.push(
          [...document.querySelectorAll('onboarding-announcement, onboarding-tour, onboarding-survey')]
            .filter((el) => el.shadowRoot?.querySelector('dialog:modal, :popover-open'))
            .map((el) => el.getAttribute('flow')!),
        );
        requestAnimationFrame(sample);
      };
      sample();
    });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'collision' }), userId);
    await expect.poll(() => openModals(page)).toEqual(['c-ann']);
    await page.keyboard.press('Escape');
    await expect.poll(() => openModals(page)).toEqual(['c-tour']);
    await page.keyboard.press('Escape');
    await expect.poll(() => openModals(page)).toEqual(['c-survey']);
    await page.locator('onboarding-survey [part="close-button"]').click();
    await expect.poll(() => openModals(page)).toEqual([]);
    const seen = await page.evaluate(() => (window as unknown as { seen: string[][] }).seen);
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.every((open) => open.length <= 1)).toBe(true);
    await expect.poll(() => recorded(env, userId, 'c-survey')).toContain('SKIPPED_FLOW:s');
    await page.close();
  });

  it('lets props.priority put a survey before an announcement', async () => {
    const userId = newUserId('priority');
    const { page } = await openPage(env, '/priority.html', '', { userId });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'priority' }), userId);
    await expect.poll(() => openModals(page)).toEqual(['p-survey']);
    await page.locator('onboarding-survey [part="close-button"]').click();
    await expect.poll(() => openModals(page)).toEqual(['p-ann']);
    await page.close();
  });
});

describe('auto-mount in Chromium', () => {
  const mounted = (page: Page) =>
    page.evaluate(() =>
      [...document.querySelectorAll('body > [flow]')].map((el) => `${el.localName}:${el.getAttribute('flow')}`).sort(),
    );

  it('mounts eligible modal flows by default, never inline types, and not twice next to a placed element', async () => {
    const userId = newUserId('automount');
    const { page } = await openPage(
      env,
      '/automount.html',
      '<onboarding-announcement flow="am-b"></onboarding-announcement>',
      { userId },
    );
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'automount' }), userId);
    await expect.poll(() => mounted(page)).toEqual(['onboarding-announcement:am-a']);
    expect(await page.locator('onboarding-announcement[flow="am-b"]').count()).toBe(1);
    expect(await page.locator('onboarding-banner').count()).toBe(0);
    await page.close();
  });

  it('can be turned off, or restricted to slugs', async () => {
    const off = newUserId('automount-off');
    const { page } = await openPage(env, '/automount-off.html', '', { userId: off, init: { autoMount: false } });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'automount' }), off);
    await page.waitForTimeout(500);
    expect(await mounted(page)).toEqual([]);
    await page.close();

    const only = newUserId('automount-only');
    const second = await openPage(env, '/automount-only.html', '', { userId: only, init: { autoMount: ['am-b'] } });
    await second.page.evaluate((id) => window.Onboarding.identify(id, { suite: 'automount' }), only);
    await expect.poll(() => mounted(second.page)).toEqual(['onboarding-announcement:am-b']);
    await second.page.close();
  });
});

describe('<onboarding-flow> in Chromium', () => {
  it('renders a CUSTOM flow from the page template and runs data-onboarding-action clicks', async () => {
    const userId = newUserId('custom');
    const { page, errors } = await openPage(
      env,
      '/custom.html',
      `<onboarding-flow flow="custom-x">
        <template><div class="mine"><h3 data-onboarding-text="title"></h3><p data-onboarding-text="subtitle"></p>
        <button data-onboarding-action="flow.forward">Next</button></div></template>
      </onboarding-flow>`,
      { userId },
    );
    await page.evaluate(() => {
      const changes: string[] = [];
      (window as unknown as { changes: string[] }).changes = changes;
      document
        .querySelector('onboarding-flow')!
        .addEventListener('onboarding-step-change', (event) => changes.push(String(event.detail.step?.id)));
    });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'custom' }), userId);
    const heading = page.locator('onboarding-flow .mine h3');
    await expect.poll(() => heading.isVisible()).toBe(true);
    // Text only: the markup in the title stays text in the page.
    expect(await heading.textContent()).toBe('Custom <b>title</b>');
    expect(await page.evaluate(() => document.querySelector('onboarding-flow')!.currentStep?.id)).toBe('c1');
    await page.locator('onboarding-flow button').click();
    await expect.poll(() => heading.textContent()).toBe('Second custom');
    await page.locator('onboarding-flow button').click();
    await expect.poll(() => heading.isVisible()).toBe(false);
    await expect.poll(async () => (await serverState(env, userId, 'custom-x'))?.$state.completed).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { changes: string[] }).changes)).toEqual([
      'c1',
      'c2',
      'undefined',
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
