// Inline elements in Chromium against the real script and service: banner, card, checklist and form.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  newUserId,
  openPage,
  recorded,
  recordedData,
  reloadAndSettle,
  serverState,
  shadowHas,
  startEnv,
  waitForPart,
  type Env,
} from '../support/browser-pages.js';

let env: Env;

beforeAll(async () => {
  env = await startEnv([
    {
      slug: 'news-banner',
      type: 'BANNER',
      data: {
        steps: [
          {
            id: 'hello',
            title: 'Hello <b>${firstName}</b>',
            subtitle: 'Something new',
            primaryButton: { title: 'Read', action: 'step.complete', uri: '#read' },
            secondaryButton: { title: 'Not now', action: 'flow.skip' },
          },
        ],
      },
    },
    {
      slug: 'tip-card',
      type: 'CARD',
      data: {
        steps: [
          {
            id: 'tip',
            title: 'A tip',
            subtitle: 'Try the search',
            imageUri: '/pixel.png',
            imageAlt: 'Search box',
            primaryButton: { title: 'Got it' },
          },
        ],
      },
    },
    {
      slug: 'setup-list',
      type: 'CHECKLIST',
      data: {
        title: 'Get set up',
        props: { sequential: true },
        steps: [
          {
            id: 'connect',
            title: 'Connect',
            subtitle: 'Connect your data',
            primaryButton: { title: 'Connect', action: 'step.complete' },
          },
          {
            id: 'invite',
            title: 'Invite',
            subtitle: 'Invite the team',
            primaryButton: { title: 'Invite', action: 'step.complete' },
            secondaryButton: { title: 'Skip', action: 'step.skip' },
          },
          { id: 'gated', title: 'Gated', startCriteria: 'user.properties.plan == "enterprise"' },
        ],
      },
    },
    {
      slug: 'profile-form',
      type: 'FORM',
      data: {
        steps: [
          {
            id: 'about',
            title: 'About you',
            fields: [
              { id: 'name', type: 'text', label: 'Name', required: true, minLength: 2 },
              { id: 'email', type: 'email', label: 'Email', required: true },
              {
                id: 'role',
                type: 'select',
                label: 'Role',
                required: true,
                options: [
                  { value: 'dev', label: 'Developer' },
                  { value: 'pm', label: 'Product' },
                ],
              },
              { id: 'size', type: 'number', label: 'Team size', min: 1, max: 500 },
              { id: 'news', type: 'checkbox', label: 'Send me news' },
            ],
          },
          {
            id: 'dev-only',
            title: 'Which language?',
            visibilityCriteria: "flows['profile-form'].steps['about'].data.role == 'dev'",
            fields: [
              {
                id: 'lang',
                type: 'radio',
                label: 'Language',
                required: true,
                options: [
                  { value: 'ts', label: 'TypeScript' },
                  { value: 'go', label: 'Go' },
                ],
              },
            ],
          },
          {
            id: 'done',
            title: 'Anything else?',
            fields: [{ id: 'note', type: 'textarea', label: 'Note', maxLength: 200 }],
          },
        ],
      },
    },
  ]);
});

afterAll(async () => {
  await env?.close();
});

describe('<onboarding-banner> in Chromium', () => {
  it('appears with the user property substituted, records started, and is gone after dismiss, also after reload', async () => {
    const userId = newUserId('banner');
    const { page, errors } = await openPage(
      env,
      '/banner.html',
      '<onboarding-banner flow="news-banner"></onboarding-banner>',
      { userId },
    );
    await page.evaluate((id) => window.Onboarding.identify(id, { firstName: 'Ada' }), userId);
    await waitForPart(page, 'onboarding-banner [part="title"]');
    await expect.poll(() => page.locator('onboarding-banner [part="title"]').textContent()).toBe('Hello Ada');
    await expect.poll(() => recorded(env, userId, 'news-banner')).toContain('STARTED_STEP:hello');

    // Keyboard: Tab reaches the secondary button, Enter dismisses.
    await page.locator('onboarding-banner [part="secondary-button"]').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => shadowHas(page, 'onboarding-banner', '[part="base"]')).toBe(false);
    await expect.poll(() => recorded(env, userId, 'news-banner')).toContain('SKIPPED_FLOW:hello');
    expect((await serverState(env, userId, 'news-banner'))!.$state.skipped).toBe(true);

    await reloadAndSettle(page);
    expect(await shadowHas(page, 'onboarding-banner', '[part="base"]')).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('follows a uri as a real link and records the button action', async () => {
    const userId = newUserId('banner-link');
    const { page } = await openPage(
      env,
      '/banner-link.html',
      '<onboarding-banner flow="news-banner"></onboarding-banner>',
      { userId },
    );
    const link = page.locator('onboarding-banner a[part="primary-button"]');
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe('#read');
    await link.click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#read');
    await expect.poll(() => recorded(env, userId, 'news-banner')).toContain('COMPLETED_STEP:hello');
    expect((await serverState(env, userId, 'news-banner'))!.$state.completed).toBe(true);
    await page.close();
  });
});

describe('<onboarding-card> in Chromium', () => {
  it('appears with its image, completes from the keyboard, and stays gone after reload', async () => {
    const userId = newUserId('card');
    const { page, errors } = await openPage(env, '/card.html', '<onboarding-card flow="tip-card"></onboarding-card>', {
      userId,
    });
    await waitForPart(page, 'onboarding-card [part="title"]');
    expect(await page.locator('onboarding-card img[part="media"]').getAttribute('alt')).toBe('Search box');
    await page.locator('onboarding-card [part="primary-button"]').focus();
    await page.keyboard.press('Space');
    await expect.poll(() => shadowHas(page, 'onboarding-card', '[part="base"]')).toBe(false);
    await expect
      .poll(() => recorded(env, userId, 'tip-card'))
      .toEqual(['STARTED_FLOW:tip', 'STARTED_STEP:tip', 'COMPLETED_STEP:tip', 'COMPLETED_FLOW:tip']);
    expect((await serverState(env, userId, 'tip-card'))!.$state.completed).toBe(true);
    await reloadAndSettle(page);
    expect(await shadowHas(page, 'onboarding-card', '[part="base"]')).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('<onboarding-checklist> in Chromium', () => {
  it('shows n of m, enforces order, keeps blocked steps closed, and records each step', async () => {
    const userId = newUserId('checklist');
    const { page, errors } = await openPage(
      env,
      '/checklist.html',
      '<onboarding-checklist flow="setup-list"></onboarding-checklist>',
      { userId },
    );
    const label = page.locator('onboarding-checklist [part="progress-label"]');
    await label.waitFor();
    expect(await label.textContent()).toBe('0 of 3');
    const headers = page.locator('onboarding-checklist [part="step-header"]');
    // The current step is open; the later one is locked, the gated one blocked.
    expect(await headers.nth(0).getAttribute('aria-expanded')).toBe('true');
    expect(await headers.nth(1).getAttribute('aria-disabled')).toBe('true');
    expect(await headers.nth(2).getAttribute('aria-disabled')).toBe('true');
    await headers.nth(1).click({ force: true });
    expect(await headers.nth(1).getAttribute('aria-expanded')).toBe('false');

    await page.locator('onboarding-checklist [part="primary-button"]').click();
    await expect.poll(() => label.textContent()).toBe('1 of 3');
    // The finished step collapsed and the next one opened.
    await expect.poll(() => headers.nth(1).getAttribute('aria-expanded')).toBe('true');
    expect(await headers.nth(0).getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('onboarding-checklist [part~="step-done"]').count()).toBe(1);

    // Keyboard: Enter on the secondary button skips the second step.
    await page.locator('onboarding-checklist [part="secondary-button"]').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => label.textContent()).toBe('2 of 3');
    await expect
      .poll(() => recorded(env, userId, 'setup-list'))
      .toEqual(expect.arrayContaining(['COMPLETED_STEP:connect', 'SKIPPED_STEP:invite']));
    // A step whose start criteria fail stays blocked and cannot be opened.
    await headers.nth(2).click({ force: true });
    expect(await headers.nth(2).getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('onboarding-checklist [part~="step-blocked"]').count()).toBe(1);

    await reloadAndSettle(page);
    await expect.poll(() => label.textContent()).toBe('2 of 3');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('is gone once every step is done, and stays gone after reload', async () => {
    const userId = newUserId('checklist-done');
    const { page } = await openPage(
      env,
      '/checklist-done.html',
      '<onboarding-checklist flow="setup-list"></onboarding-checklist>',
      { userId },
    );
    await page.evaluate((id) => window.Onboarding.identify(id, { plan: 'enterprise' }), userId);
    const label = page.locator('onboarding-checklist [part="progress-label"]');
    await label.waitFor();
    for (const expected of ['1 of 3', '2 of 3']) {
      await page.locator('onboarding-checklist [part="primary-button"]').click();
      await expect.poll(() => label.textContent()).toBe(expected);
    }
    await page.locator('onboarding-checklist [part="primary-button"]').click();
    await expect.poll(() => shadowHas(page, 'onboarding-checklist', '[part="base"]')).toBe(false);
    await expect.poll(async () => (await serverState(env, userId, 'setup-list'))?.$state.completed).toBe(true);
    await reloadAndSettle(page);
    expect(await shadowHas(page, 'onboarding-checklist', '[part="base"]')).toBe(false);
    await page.close();
  });
});

describe('<onboarding-form> in Chromium', () => {
  it('validates accessibly, sends the values as step data, and branches on the answer after the service responds', async () => {
    const userId = newUserId('form');
    const { page, errors } = await openPage(
      env,
      '/form.html',
      '<onboarding-form flow="profile-form"></onboarding-form>',
      { userId },
    );
    const submit = page.locator('onboarding-form [part="primary-button"]');
    await submit.waitFor();
    expect(await submit.isDisabled()).toBe(true);

    // Typing by keyboard: the label names the input; a too-short name shows a linked error.
    await page.getByLabel('Name').fill('A');
    await page.getByLabel('Name').blur();
    const name = page.getByLabel('Name');
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    const errorId = await name.getAttribute('aria-describedby');
    expect(await page.locator(`onboarding-form #${errorId}`).textContent()).toBe('Use at least 2 characters.');
    await name.fill('Ada');
    expect(await name.getAttribute('aria-invalid')).toBe('false');
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByLabel('Email').blur();
    expect(await page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Role').selectOption('dev');
    await page.getByLabel('Team size').fill('12');
    await page.getByLabel('Send me news').check();
    expect(await submit.isDisabled()).toBe(false);
    await page.getByLabel('Team size').press('Enter');

    await expect
      .poll(() => recordedData(env, userId, 'profile-form', 'COMPLETED_STEP'))
      .toEqual({
        name: 'Ada',
        email: 'ada@example.com',
        role: 'dev',
        size: 12,
        news: true,
      });
    // The answer "dev" makes the branch step visible on the service; the form shows it next.
    await expect
      .poll(() => page.locator('onboarding-form [part="title"]').textContent(), { timeout: 10_000 })
      .toBe('Which language?');
    await page.getByLabel('TypeScript').check();
    await page.locator('onboarding-form [part="primary-button"]').click();
    await expect.poll(() => page.locator('onboarding-form [part="title"]').textContent()).toBe('Anything else?');
    await page.getByLabel('Note').fill('Thanks');
    await page.locator('onboarding-form [part="primary-button"]').click();
    await expect.poll(() => shadowHas(page, 'onboarding-form', '[part="base"]')).toBe(false);
    await expect.poll(async () => (await serverState(env, userId, 'profile-form'))?.$state.completed).toBe(true);
    expect(await recorded(env, userId, 'profile-form')).toEqual(
      expect.arrayContaining(['COMPLETED_STEP:about', 'COMPLETED_STEP:dev-only', 'COMPLETED_STEP:done']),
    );
    await reloadAndSettle(page);
    expect(await shadowHas(page, 'onboarding-form', '[part="base"]')).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('skips the branch step when the answer does not call for it', async () => {
    const userId = newUserId('form-branch');
    const { page } = await openPage(
      env,
      '/form-branch.html',
      '<onboarding-form flow="profile-form"></onboarding-form>',
      { userId },
    );
    await page.locator('onboarding-form [part="primary-button"]').waitFor();
    await page.getByLabel('Name').fill('Bo');
    await page.getByLabel('Email').fill('bo@example.com');
    await page.getByLabel('Role').selectOption('pm');
    await page.locator('onboarding-form [part="primary-button"]').click();
    await expect
      .poll(() => page.locator('onboarding-form [part="title"]').textContent(), { timeout: 10_000 })
      .toBe('Anything else?');
    const state = await serverState(env, userId, 'profile-form');
    expect(state!.data.steps.find((s) => s.id === 'dev-only')!.$state.visible).toBe(false);
    await page.close();
  });
});
