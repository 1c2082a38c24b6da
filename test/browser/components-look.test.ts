// Look and feel in Chromium: theme tokens and parts from the page, light and dark, RTL, and reduced motion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUserId, openPage, startEnv, surfaceHeights, type Env } from '../support/browser-pages.js';

let env: Env;
const suite = (name: string) => `has(user.properties.suite) && user.properties.suite == '${name}'`;

beforeAll(async () => {
  env = await startEnv([
    {
      slug: 'look-card',
      type: 'CARD',
      targetingLogic: suite('look'),
      data: { steps: [{ id: 'c', title: 'Card', primaryButton: { title: 'Go' } }] },
    },
    {
      slug: 'look-tour',
      type: 'TOUR',
      targetingLogic: suite('rtl'),
      data: {
        steps: [
          { id: 'a', title: 'First', selector: '#target' },
          { id: 'b', title: 'Second' },
        ],
      },
    },
    {
      slug: 'look-ann',
      type: 'ANNOUNCEMENT',
      targetingLogic: suite('motion'),
      data: { steps: [{ id: 'a', title: 'Calm' }] },
    },
    {
      slug: 'look-height',
      type: 'ANNOUNCEMENT',
      targetingLogic: suite('height'),
      data: {
        steps: [
          {
            id: 'a',
            title: 'Reports, rebuilt',
            subtitle: 'Faster charts and scheduled exports.',
            imageUri: '/pixel.svg',
            imageAlt: 'A chart',
            primaryButton: { title: 'Show me' },
          },
          { id: 'b', title: 'One more thing' },
        ],
      },
    },
    {
      slug: 'look-banner',
      type: 'BANNER',
      targetingLogic: suite('narrow'),
      data: {
        steps: [
          {
            id: 'a',
            title: 'Dark mode is here',
            subtitle: 'Switch it on in your settings, or follow your system.',
            primaryButton: { title: 'Try it' },
            secondaryButton: { title: 'Not now' },
          },
        ],
      },
    },
  ]);
});

afterAll(async () => {
  await env?.close();
});

describe('look and feel in Chromium', () => {
  it('takes --onboarding-* properties and ::part rules from the page, and follows light, dark and theme', async () => {
    const userId = newUserId('look');
    const { page } = await openPage(
      env,
      '/look.html',
      `<onboarding-card id="plain" flow="look-card"></onboarding-card>
       <onboarding-card id="dark" flow="look-card" theme="dark"></onboarding-card>
       <onboarding-card id="light" flow="look-card" theme="light"></onboarding-card>`,
      {
        userId,
        head: `<style>
          #plain { --onboarding-accent: rgb(200, 0, 100); }
          #plain::part(title) { letter-spacing: 3px; }
        </style>`,
      },
    );
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'look' }), userId);
    await page.locator('#light [part="base"]').waitFor();
    const colours = () =>
      page.evaluate(() =>
        Object.fromEntries(
          ['plain', 'dark', 'light'].map((id) => {
            const root = document.getElementById(id)!.shadowRoot!;
            return [
              id,
              [
                getComputedStyle(root.querySelector('[part="base"]')!).backgroundColor,
                getComputedStyle(root.querySelector('[part="primary-button"]')!).backgroundColor,
              ],
            ];
          }),
        ),
      );
    expect(await colours()).toEqual({
      plain: ['rgb(255, 255, 255)', 'rgb(200, 0, 100)'],
      dark: ['rgb(31, 35, 48)', 'rgb(142, 166, 255)'],
      light: ['rgb(255, 255, 255)', 'rgb(54, 81, 201)'],
    });
    expect(
      await page.evaluate(
        () =>
          getComputedStyle(document.getElementById('plain')!.shadowRoot!.querySelector('[part="title"]')!)
            .letterSpacing,
      ),
    ).toBe('3px');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await colours()).toEqual({
      plain: ['rgb(31, 35, 48)', 'rgb(200, 0, 100)'],
      dark: ['rgb(31, 35, 48)', 'rgb(142, 166, 255)'],
      light: ['rgb(255, 255, 255)', 'rgb(54, 81, 201)'],
    });
    await page.close();
  });

  it('puts the buttons of a narrow banner under its text, by the banner width and not the viewport', async () => {
    const userId = newUserId('narrow');
    const { page } = await openPage(
      env,
      '/narrow.html',
      `<div style="width: 360px"><onboarding-banner id="narrow" flow="look-banner"></onboarding-banner></div>
       <div style="width: 900px"><onboarding-banner id="wide" flow="look-banner"></onboarding-banner></div>`,
      { userId },
    );
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'narrow' }), userId);
    await page.locator('#wide [part="actions"]').waitFor();
    const layout = (id: string) =>
      page.evaluate((host) => {
        const root = document.getElementById(host)!.shadowRoot!;
        const box = (part: string) => root.querySelector(`[part="${part}"]`)!.getBoundingClientRect();
        return { textWidth: box('subtitle').width, actionsTop: box('actions').top, textBottom: box('subtitle').bottom };
      }, id);
    const narrow = await layout('narrow');
    expect(narrow.actionsTop).toBeGreaterThanOrEqual(narrow.textBottom);
    expect(narrow.textWidth).toBeGreaterThan(250);
    const wide = await layout('wide');
    expect(wide.actionsTop).toBeLessThan(wide.textBottom);
    await page.close();
  });

  it('mirrors in a right-to-left page, including the tour keys', async () => {
    const userId = newUserId('rtl');
    const { page } = await openPage(env, '/rtl.html', '<button id="target" style="margin: 200px">Target</button>', {
      userId,
      head: '<script>document.documentElement.dir = "rtl"</script>',
    });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'rtl' }), userId);
    const counter = page.locator('onboarding-tour [part="counter"]');
    await expect.poll(() => counter.textContent()).toBe('Step 1 of 2');
    // The close button sits at the inline end, which is the left in RTL.
    const close = (await page.locator('onboarding-tour [part="close-button"]').boundingBox())!;
    const tip = (await page.locator('onboarding-tour [part="base"]').boundingBox())!;
    expect(close.x - tip.x).toBeLessThan(tip.width / 2);
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(200);
    expect(await counter.textContent()).toBe('Step 1 of 2');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => counter.textContent()).toBe('Step 2 of 2');
    await page.close();
  });

  it("sizes the announcement to its content, even where the engine's dialog style would stretch it (WebKit's)", async () => {
    const userId = newUserId('height');
    env.site.page(
      '/pixel.svg',
      '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200"><rect width="400" height="200" fill="teal"/></svg>',
      { 'Content-Type': 'image/svg+xml' },
    );
    const { page, errors } = await openPage(
      env,
      '/height.html',
      '<onboarding-announcement flow="look-height"></onboarding-announcement>',
      { userId },
    );
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'height' }), userId);
    await page.locator('onboarding-announcement dialog[open] img').waitFor();
    await page.waitForFunction(
      () =>
        (document.querySelector('onboarding-announcement')!.shadowRoot!.querySelector('img') as HTMLImageElement)
          .complete,
    );
    const heights = async () => {
      const { surface, content, window } = await page.evaluate(surfaceHeights, [
        'onboarding-announcement',
        'dialog',
      ] as const);
      return { dialog: surface, content, window };
    };
    const own = await heights();
    expect(own.dialog).toBeLessThan(own.window - 200);
    expect(Math.abs(own.dialog - own.content)).toBeLessThan(2);
    // WebKit's user-agent style gives a modal dialog no fit-content height, so it takes its max-height and the grid
    // spreads the spare height over its rows. The same rule, set before the element's own, must change nothing.
    await page.evaluate(() => {
      const root = document.querySelector('onboarding-announcement')!.shadowRoot!;
      const engine = new CSSStyleSheet();
      engine.replaceSync('dialog { height: auto; align-content: normal; }');
      root.adoptedStyleSheets = [engine, ...root.adoptedStyleSheets];
    });
    const stretched = await heights();
    expect(Math.abs(stretched.dialog - own.dialog)).toBeLessThan(2);
    expect(Math.abs(stretched.dialog - stretched.content)).toBeLessThan(2);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('turns animation off for prefers-reduced-motion', async () => {
    const userId = newUserId('motion');
    const { page } = await openPage(env, '/motion.html', '', { userId });
    const animation = () =>
      page.evaluate(
        () =>
          getComputedStyle(document.querySelector('onboarding-announcement')!.shadowRoot!.querySelector('dialog')!)
            .animationName,
      );
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'motion' }), userId);
    await page.locator('onboarding-announcement dialog').waitFor();
    expect(await animation()).toBe('none');
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    expect(await animation()).toBe('enter');
    await page.close();
  });
});
