// <onboarding-tour> in Chromium: anchoring, keys, resume after reload, moving, late and shadow-root targets, top layer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newUserId, openPage, recorded, reloadAndSettle, serverState, startEnv, type Env } from './components-helpers.js';

let env: Env;
const suite = (name: string) => `has(user.properties.suite) && user.properties.suite == '${name}'`;

beforeAll(async () => {
  env = await startEnv([
    {
      slug: 'tour',
      type: 'TOUR',
      targetingLogic: suite('tour'),
      data: {
        steps: [
          { id: 'first', title: 'The search', subtitle: 'Find anything', selector: '#search' },
          { id: 'second', title: 'The menu', selector: '#menu', props: { placement: 'right' } },
          { id: 'third', title: 'All done' },
        ],
      },
    },
    { slug: 'moving', type: 'TOUR', targetingLogic: suite('moving'), data: { props: { spotlight: true }, steps: [{ id: 'm', title: 'Moving', selector: '#mover' }] } },
    { slug: 'late', type: 'TOUR', targetingLogic: suite('late'), data: { steps: [{ id: 'l', title: 'Late', selector: '.late-target' }] } },
    {
      slug: 'shadow',
      type: 'TOUR',
      targetingLogic: suite('shadow'),
      data: { steps: [{ id: 'explicit', title: 'Explicit', selector: 'my-widget >>> .inner' }, { id: 'searched', title: 'Searched', selector: '.deep-inner' }] },
    },
    {
      slug: 'missing',
      type: 'TOUR',
      targetingLogic: suite('missing'),
      data: { props: { targetTimeout: 400, missingTarget: 'skip' }, steps: [{ id: 'gone', title: 'Never there', selector: '#nowhere' }, { id: 'there', title: 'There', selector: '#search' }] },
    },
  ]);
});

afterAll(async () => {
  await env?.close();
});

const PAGE = `
  <style>
    body { margin: 0; font: 16px sans-serif; }
    #search { position: absolute; left: 300px; top: 120px; width: 200px; height: 30px; }
    #menu { position: absolute; left: 20px; top: 300px; width: 100px; height: 40px; }
    #cover { position: fixed; inset: 0; z-index: 2147483647; background: rgb(255 0 0 / 0.1); }
    .stack { position: relative; z-index: 2147483647; transform: translateZ(0); }
  </style>
  <input id="search" aria-label="Search">
  <button id="menu">Menu</button>
  <div class="stack"><div id="cover"></div></div>`;

async function rect(page: Page, selector: string) {
  return page.evaluate((s) => {
    const el = document.querySelector('onboarding-tour')!.shadowRoot!.querySelector(s);
    const r = el?.getBoundingClientRect();
    return r ? { x: r.x, y: r.y, width: r.width, height: r.height } : null;
  }, selector);
}

async function targetRect(page: Page, expression: string) {
  return page.evaluate((e) => {
    const r = (new Function(`return ${e}`)() as Element).getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  }, expression);
}

const counter = (page: Page) => page.locator('onboarding-tour [part="counter"]').textContent();

describe('<onboarding-tour> in Chromium', () => {
  it('anchors to the target in the top layer, moves by keys, and records each transition', async () => {
    const userId = newUserId('tour');
    const { page, errors } = await openPage(env, '/tour.html', PAGE, { userId });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'tour' }), userId);
    await expect.poll(() => counter(page)).toBe('Step 1 of 3');
    // Below the search box (placement bottom, offset 12), centred on it.
    const tip = (await rect(page, '[part="base"]'))!;
    const search = await targetRect(page, "document.querySelector('#search')");
    expect(Math.abs(tip.y - (search.y + search.height + 12))).toBeLessThan(2);
    expect(Math.abs(tip.x + tip.width / 2 - (search.x + search.width / 2))).toBeLessThan(2);
    // Above a full-page cover with the largest z-index: the top layer wins over stacking contexts.
    const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.localName, [tip.x + 10, tip.y + 10]);
    expect(hit).toBe('onboarding-tour');
    expect(await page.evaluate(() => document.querySelector('onboarding-tour')!.shadowRoot!.querySelector('[part="base"]')!.matches(':popover-open'))).toBe(true);
    // The arrow sits on the tooltip's top edge, pointing at the target.
    const arrow = (await rect(page, '[part="arrow"]'))!;
    expect(arrow.y).toBeLessThan(tip.y);

    await page.keyboard.press('ArrowRight');
    await expect.poll(() => counter(page)).toBe('Step 2 of 3');
    const menu = await targetRect(page, "document.querySelector('#menu')");
    const second = (await rect(page, '[part="base"]'))!;
    expect(Math.abs(second.x - (menu.x + menu.width + 12))).toBeLessThan(2);
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => counter(page)).toBe('Step 1 of 3');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => counter(page)).toBe('Step 2 of 3');
    await expect.poll(() => recorded(env, userId, 'tour')).toEqual(
      expect.arrayContaining(['STARTED_FLOW:first', 'COMPLETED_STEP:first', 'NOT_STARTED_STEP:first']),
    );

    // Resumed after reload at the step reached.
    await reloadAndSettle(page);
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'tour' }), userId);
    await expect.poll(() => counter(page)).toBe('Step 2 of 3');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => counter(page)).toBe('Step 3 of 3');
    // A step without a selector is centred in the viewport.
    const centred = (await rect(page, '[part="base"]'))!;
    const viewport = page.viewportSize()!;
    expect(Math.abs(centred.x + centred.width / 2 - viewport.width / 2)).toBeLessThan(2);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate(() => Boolean(document.querySelector('onboarding-tour')?.shadowRoot?.querySelector('[part="base"]')))).toBe(false);
    await expect.poll(() => recorded(env, userId, 'tour')).toContain('SKIPPED_FLOW:third');
    expect((await serverState(env, userId, 'tour'))!.$state.skipped).toBe(true);
    await reloadAndSettle(page);
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'tour' }), userId);
    await page.waitForTimeout(300);
    expect(await page.locator('onboarding-tour [part="base"]').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('follows a moving target, with the spotlight around it', async () => {
    const userId = newUserId('moving');
    const { page } = await openPage(env, '/moving.html', `<div id="mover" style="position:absolute; left:300px; top:100px; width:80px; height:40px">Move</div>`, { userId });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'moving' }), userId);
    await expect.poll(() => rect(page, '[part="base"]')).not.toBeNull();
    const check = async () => {
      const target = await targetRect(page, "document.querySelector('#mover')");
      const tip = (await rect(page, '[part="base"]'))!;
      const spot = (await rect(page, '[part="spotlight"]'))!;
      return (
        Math.abs(tip.y - (target.y + target.height + 12)) < 2 &&
        Math.abs(tip.x + tip.width / 2 - (target.x + target.width / 2)) < 2 &&
        Math.abs(spot.x - (target.x - 4)) < 1 &&
        Math.abs(spot.width - (target.width + 8)) < 1
      );
    };
    await expect.poll(check).toBe(true);
    await page.evaluate(() => {
      const mover = document.querySelector<HTMLElement>('#mover')!;
      mover.style.left = '520px';
      mover.style.top = '260px';
    });
    await expect.poll(check).toBe(true);
    expect((await targetRect(page, "document.querySelector('#mover')")).x).toBe(520);
    // Resizing the target is followed too.
    await page.evaluate(() => (document.querySelector<HTMLElement>('#mover')!.style.width = '240px'));
    await expect.poll(check).toBe(true);
    expect(await page.evaluate(() => document.querySelector('onboarding-tour')!.shadowRoot!.querySelector('[part="overlay"]')!.matches(':popover-open'))).toBe(true);
    await page.close();
  });

  it('waits for a target that appears later and scrolls it into view', async () => {
    const userId = newUserId('late');
    const { page } = await openPage(env, '/late.html', '<div style="height: 3000px"></div>', { userId });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'late' }), userId);
    await page.waitForTimeout(800);
    expect(await rect(page, '[part="base"]')).toBeNull();
    await page.evaluate(() => {
      const late = document.createElement('button');
      late.className = 'late-target';
      late.textContent = 'Late';
      late.style.cssText = 'position:absolute; top:2500px; left:200px';
      document.body.append(late);
    });
    await expect.poll(() => rect(page, '[part="base"]')).not.toBeNull();
    await expect.poll(() => page.evaluate(() => scrollY)).toBeGreaterThan(1500);
    await expect.poll(async () => {
      const target = await targetRect(page, "document.querySelector('.late-target')");
      const tip = (await rect(page, '[part="base"]'))!;
      return Math.abs(tip.y - (target.y + target.height + 12)) < 2;
    }).toBe(true);
    await page.close();
  });

  it('finds targets inside open shadow roots, explicitly with >>> and by searching', async () => {
    const userId = newUserId('shadow');
    const { page } = await openPage(
      env,
      '/shadow.html',
      `<my-widget style="display:block; margin: 150px 0 0 250px"></my-widget>
      <script>
        customElements.define('my-widget', class extends HTMLElement {
          connectedCallback() {
            const root = this.attachShadow({ mode: 'open' });
            root.innerHTML = '<button class="inner">Inner</button><nested-box></nested-box>';
          }
        });
        customElements.define('nested-box', class extends HTMLElement {
          connectedCallback() {
            this.attachShadow({ mode: 'open' }).innerHTML = '<span class="deep-inner" style="display:inline-block; margin: 200px 0 0 100px">Deep</span>';
          }
        });
      </script>`,
      { userId },
    );
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'shadow' }), userId);
    const inner = "document.querySelector('my-widget').shadowRoot.querySelector('.inner')";
    await expect.poll(async () => {
      const tip = await rect(page, '[part="base"]');
      const target = await targetRect(page, inner);
      return tip !== null && Math.abs(tip.y - (target.y + target.height + 12)) < 2;
    }).toBe(true);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => counter(page)).toBe('Step 2 of 2');
    const deep = "document.querySelector('my-widget').shadowRoot.querySelector('nested-box').shadowRoot.querySelector('.deep-inner')";
    await expect.poll(async () => {
      const tip = (await rect(page, '[part="base"]'))!;
      const target = await targetRect(page, deep);
      return Math.abs(tip.y - (target.y + target.height + 12)) < 2 && Math.abs(tip.x + tip.width / 2 - (target.x + target.width / 2)) < 2;
    }).toBe(true);
    await page.close();
  });

  it('skips a step whose target never appears when configured to', async () => {
    const userId = newUserId('missing');
    const { page } = await openPage(env, '/missing.html', PAGE, { userId });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'missing' }), userId);
    await expect.poll(() => page.locator('onboarding-tour [part="title"]').textContent(), { timeout: 5000 }).toBe('There');
    await expect.poll(() => recorded(env, userId, 'missing')).toContain('SKIPPED_STEP:gone');
    await page.close();
  });
});
