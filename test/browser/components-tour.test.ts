// <onboarding-tour> in Chromium: anchoring, keys, resume after reload, moving, late and shadow-root targets, top layer; and
// the target engine on real layouts: scrollers, headers, transforms, fixed boxes, dialogs, frames, hidden targets, routes;
// the start rules, and Onboarding.debug() saying what each flow waits for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { PRIVATE_KEY, PUBLIC_KEY } from '../support/service.js';
import {
  newUserId,
  openPage,
  recorded,
  reloadAndSettle,
  serverState,
  startEnv,
  waitForPart,
  type Env,
} from '../support/browser-pages.js';

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
    {
      slug: 'moving',
      type: 'TOUR',
      targetingLogic: suite('moving'),
      data: { props: { spotlight: true }, steps: [{ id: 'm', title: 'Moving', selector: '#mover' }] },
    },
    {
      slug: 'late',
      type: 'TOUR',
      targetingLogic: suite('late'),
      data: { steps: [{ id: 'l', title: 'Late', selector: '.late-target' }] },
    },
    {
      slug: 'shadow',
      type: 'TOUR',
      targetingLogic: suite('shadow'),
      data: {
        steps: [
          { id: 'explicit', title: 'Explicit', selector: 'my-widget >>> .inner' },
          { id: 'searched', title: 'Searched', selector: '.deep-inner' },
        ],
      },
    },
    {
      slug: 'missing',
      type: 'TOUR',
      targetingLogic: suite('missing'),
      data: {
        props: { targetTimeout: 400, missingTarget: 'skip' },
        steps: [
          { id: 'gone', title: 'Never there', selector: '#nowhere' },
          { id: 'there', title: 'There', selector: '#search' },
        ],
      },
    },
    {
      slug: 'layouts',
      type: 'TOUR',
      targetingLogic: suite('layouts'),
      data: {
        steps: [
          { id: 'deep', title: 'Three scrollers deep', selector: '#deep-target' },
          { id: 'fixed', title: 'In a fixed box', selector: '#fixed-target', props: { placement: 'top' } },
          { id: 'moved', title: 'Under a transform', selector: '#moved-target' },
          { id: 'header', title: 'Under the header', selector: '#top-target', props: { placement: 'top' } },
        ],
      },
    },
    {
      slug: 'dialog',
      type: 'TOUR',
      targetingLogic: suite('dialog'),
      data: {
        steps: [
          { id: 'in-dialog', title: 'In the dialog', selector: '#dialog-target' },
          { id: 'after', title: 'After' },
        ],
      },
    },
    {
      slug: 'frame',
      type: 'TOUR',
      targetingLogic: suite('frame'),
      data: {
        steps: [
          { id: 'toolbar', title: 'In the frame', selector: 'iframe#editor >>> .toolbar' },
          { id: 'end', title: 'End' },
        ],
      },
    },
    {
      slug: 'hidden',
      type: 'TOUR',
      targetingLogic: suite('hidden'),
      data: {
        props: { targetTimeout: 300, missingTarget: 'skip' },
        steps: [
          { id: 'none', title: 'display none', selector: '#none' },
          { id: 'zero', title: 'zero size', selector: '#zero' },
          { id: 'invisible', title: 'visibility hidden', selector: '#invisible' },
          { id: 'many', title: 'First visible', selector: '.item' },
        ],
      },
    },
    {
      slug: 'comeback',
      type: 'TOUR',
      targetingLogic: suite('comeback'),
      data: { props: { targetTimeout: 60000 }, steps: [{ id: 'swap', title: 'Swapped', selector: '.swap' }] },
    },
    {
      slug: 'routes',
      type: 'TOUR',
      targetingLogic: suite('routes'),
      data: {
        steps: [
          { id: 'reports', title: 'Reports', selector: '#report', page: '/app/reports/*' },
          {
            id: 'settings',
            title: 'Settings',
            selector: '#settings',
            page: '/app/projects/:id/settings',
            primaryButton: { title: 'Go on', uri: '/app/done' },
          },
          { id: 'done', title: 'Done page', selector: '#done', page: '/app/done' },
        ],
      },
    },
    {
      slug: 'advance',
      type: 'TOUR',
      targetingLogic: suite('advance'),
      data: {
        props: { spotlight: true },
        steps: [
          { id: 'click', title: 'Click Save', selector: '#save', advanceOn: 'click' },
          { id: 'appears', title: 'Wait for the toast', selector: '#outside', advanceOn: { appears: '.toast' } },
          { id: 'locked', title: 'Look, do not touch', selector: '#save', props: { canClickTarget: false } },
        ],
      },
    },
    // Start rules: each flow opens only when its startWhen holds (see the describe block at the end).
    {
      slug: 'start-page',
      type: 'BANNER',
      targetingLogic: suite('start-page'),
      startWhen: { page: ['/start/*', '!/start/settings'] },
      data: { steps: [{ id: 'b', title: 'Reports banner' }] },
    },
    {
      slug: 'start-element',
      type: 'ANNOUNCEMENT',
      targetingLogic: suite('start-element'),
      startWhen: { element: '#late-panel' },
      data: { steps: [{ id: 'a', title: 'The panel is here' }] },
    },
    {
      slug: 'start-click',
      type: 'TOUR',
      targetingLogic: suite('start-click'),
      startWhen: { click: '#take-tour' },
      data: { steps: [{ id: 'one', title: 'Tour by click', selector: '#take-tour' }] },
    },
    {
      slug: 'start-delay',
      type: 'BANNER',
      targetingLogic: suite('start-delay'),
      startWhen: { page: '/delay/*', delay: '1500ms' },
      data: { steps: [{ id: 'd', title: 'Delayed banner' }] },
    },
    // Onboarding.debug(): one user sees all five, each held back here by something else (see the describe block at the end).
    {
      slug: 'debug-page',
      type: 'BANNER',
      targetingLogic: suite('debug'),
      startWhen: { page: '/debug/reports/*' },
      data: { steps: [{ id: 'b', title: 'Reports banner' }] },
    },
    {
      slug: 'debug-news',
      type: 'ANNOUNCEMENT',
      targetingLogic: suite('debug'),
      data: { props: { priority: 10 }, steps: [{ id: 'n', title: 'News first' }] },
    },
    {
      slug: 'debug-tour',
      type: 'TOUR',
      targetingLogic: suite('debug'),
      data: { steps: [{ id: 't', title: 'Centred tour' }] },
    },
    {
      slug: 'debug-click',
      type: 'TOUR',
      targetingLogic: suite('debug'),
      startWhen: { click: '#debug-start' },
      data: { steps: [{ id: 'c', title: 'Tour by click', selector: '#debug-start' }] },
    },
    {
      slug: 'debug-target',
      type: 'TOUR',
      targetingLogic: suite('debug'),
      data: { steps: [{ id: 'm', title: 'Never there', selector: '#debug-missing' }] },
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
    const el = document.querySelector('onboarding-tour')?.shadowRoot?.querySelector(s);
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
    const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.localName, [tip.x + 10, tip.y + 10]);
    expect(hit).toBe('onboarding-tour');
    expect(
      await page.evaluate(() =>
        document.querySelector('onboarding-tour')!.shadowRoot!.querySelector('[part="base"]')!.matches(':popover-open'),
      ),
    ).toBe(true);
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
    await expect
      .poll(() => recorded(env, userId, 'tour'))
      .toEqual(expect.arrayContaining(['STARTED_FLOW:first', 'COMPLETED_STEP:first', 'NOT_STARTED_STEP:first']));

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
    await expect
      .poll(() =>
        page.evaluate(() =>
          Boolean(document.querySelector('onboarding-tour')?.shadowRoot?.querySelector('[part="base"]')),
        ),
      )
      .toBe(false);
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
    const { page } = await openPage(
      env,
      '/moving.html',
      `<div id="mover" style="position:absolute; left:300px; top:100px; width:80px; height:40px">Move</div>`,
      { userId },
    );
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
    expect(
      await page.evaluate(() =>
        document
          .querySelector('onboarding-tour')!
          .shadowRoot!.querySelector('[part="overlay"]')!
          .matches(':popover-open'),
      ),
    ).toBe(true);
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
    await expect
      .poll(async () => {
        const target = await targetRect(page, "document.querySelector('.late-target')");
        const tip = (await rect(page, '[part="base"]'))!;
        return Math.abs(tip.y - (target.y + target.height + 12)) < 2;
      })
      .toBe(true);
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
    await expect
      .poll(async () => {
        const tip = await rect(page, '[part="base"]');
        const target = await targetRect(page, inner);
        return tip !== null && Math.abs(tip.y - (target.y + target.height + 12)) < 2;
      })
      .toBe(true);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => counter(page)).toBe('Step 2 of 2');
    const deep =
      "document.querySelector('my-widget').shadowRoot.querySelector('nested-box').shadowRoot.querySelector('.deep-inner')";
    await expect
      .poll(async () => {
        const tip = (await rect(page, '[part="base"]'))!;
        const target = await targetRect(page, deep);
        return (
          Math.abs(tip.y - (target.y + target.height + 12)) < 2 &&
          Math.abs(tip.x + tip.width / 2 - (target.x + target.width / 2)) < 2
        );
      })
      .toBe(true);
    await page.close();
  });

  it('skips a step whose target never appears when configured to', async () => {
    const userId = newUserId('missing');
    const { page } = await openPage(env, '/missing.html', PAGE, { userId });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'missing' }), userId);
    await expect
      .poll(() => page.locator('onboarding-tour [part="title"]').textContent(), { timeout: 5000 })
      .toBe('There');
    await expect.poll(() => recorded(env, userId, 'missing')).toContain('SKIPPED_STEP:gone');
    await page.close();
  });
});

/** The rectangle of the element `expression` evaluates to, in the top window's viewport (through frames). */
async function topRect(page: Page, expression: string) {
  return page.evaluate((e) => {
    const element = new Function(`return ${e}`)() as Element;
    const r = element.getBoundingClientRect();
    let x = r.x;
    let y = r.y;
    for (let view: Window | null = element.ownerDocument.defaultView; view?.frameElement; view = view.parent) {
      const frame = view.frameElement.getBoundingClientRect();
      x += frame.x + view.frameElement.clientLeft;
      y += frame.y + view.frameElement.clientTop;
    }
    return { x, y, width: r.width, height: r.height };
  }, expression);
}

type Box = { x: number; y: number; width: number; height: number };
const tourRoot = "document.querySelector('onboarding-tour')?.shadowRoot";

/**
 * Waits until the tooltip has settled on screen, beside its target (at most 20 px away), with both below the page's
 * header (`headerBottom`).
 */
async function expectBeside(page: Page, target: string, headerBottom = 0): Promise<void> {
  let last = '';
  await expect
    .poll(
      async () => {
        const tip = await rect(page, '[part="base"]');
        if (!tip) return 'no tooltip';
        // Settled: where it was at the last look (a smooth scroll may still be moving it).
        const now = JSON.stringify(tip);
        if (now !== last) return `moving to ${(last = now)}`;
        const t: Box = await topRect(page, target);
        const view = page.viewportSize()!;
        const gap = Math.max(
          t.x - (tip.x + tip.width),
          tip.x - (t.x + t.width),
          t.y - (tip.y + tip.height),
          tip.y - (t.y + t.height),
          0,
        );
        if (tip.x < 0 || tip.y < 0 || tip.x + tip.width > view.width || tip.y + tip.height > view.height)
          return `tooltip off screen ${JSON.stringify(tip)}`;
        if (t.y < headerBottom || t.y + t.height > view.height)
          return `target not in view below the header ${JSON.stringify(t)}`;
        if (tip.y < headerBottom) return `tooltip under the header ${JSON.stringify(tip)}`;
        return gap <= 20 ? 'beside' : `tooltip ${gap}px away`;
      },
      { timeout: 6000 },
    )
    .toBe('beside');
}

/** Clicks the middle of a part of the tooltip with the real mouse. */
async function clickPart(page: Page, part: string): Promise<void> {
  const box = (await rect(page, `[part="${part}"]`))!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

const title = (page: Page) =>
  page.evaluate(
    (root) =>
      (new Function(`return ${root}`)() as ShadowRoot | undefined)?.querySelector('[part="title"]')?.textContent ??
      null,
    tourRoot,
  );

describe('the target engine under <onboarding-tour>, in Chromium', () => {
  it('reaches a target three scrollers deep, in a fixed box, under a transform and under a fixed header', async () => {
    const userId = newUserId('layouts');
    const { page, errors } = await openPage(
      env,
      '/layouts.html',
      `<style>
        body { margin: 0; font: 16px sans-serif; }
        header { position: fixed; top: 0; left: 0; right: 0; height: 60px; background: #223; color: #fff; z-index: 10; }
        .scroll { overflow: auto; height: 320px; border: 1px solid #ccc; margin: 0 20px; }
        .scroll .scroll { height: 260px; }
        .scroll .scroll .scroll { height: 200px; }
        .tall { height: 700px; }
        #fixed-box { position: fixed; right: 20px; bottom: 20px; width: 200px; height: 60px; }
        .transformed { transform: translate(40px, 30px) scale(0.9); transform-origin: 0 0; }
      </style>
      <header>App</header>
      <div style="height: 1400px"></div>
      <div class="scroll"><div class="tall"></div><div class="scroll"><div class="tall"></div><div class="scroll"><div class="tall"></div>
        <button id="deep-target">Deep</button><div class="tall"></div></div><div class="tall"></div></div><div class="tall"></div></div>
      <div id="fixed-box"><button id="fixed-target">Fixed</button></div>
      <div class="transformed"><div style="height: 600px"></div><button id="moved-target">Moved</button></div>
      <div style="height: 600px"></div><button id="top-target">Top</button><div style="height: 1200px"></div>`,
      {
        userId,
        // Counts the frame callbacks and timers the page's scripts ask for, from before the script runs.
        head: `<script>
          window.asked = { frames: 0, timers: 0 };
          const raf = requestAnimationFrame, timeout = setTimeout, interval = setInterval;
          window.requestAnimationFrame = (f) => (asked.frames++, raf(f));
          window.setTimeout = (...a) => (asked.timers++, timeout(...a));
          window.setInterval = (...a) => (asked.timers++, interval(...a));
        </script>`,
      },
    );
    const asked = () =>
      page.evaluate(() => ({ ...(window as unknown as { asked: { frames: number; timers: number } }).asked }));
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'layouts' }), userId);
    await expect.poll(() => title(page)).toBe('Three scrollers deep');
    await expectBeside(page, "document.querySelector('#deep-target')", 60);
    // Nothing moves: the tour asks for no frame and sets no timer (no polling, no frame loop).
    await page.waitForTimeout(300);
    const before = await asked();
    await page.waitForTimeout(1000);
    expect(await asked()).toEqual(before);
    // The viewport changes size: the tooltip follows, still beside its target.
    await page.setViewportSize({ width: 900, height: 560 });
    await expectBeside(page, "document.querySelector('#deep-target')", 60);
    await page.setViewportSize({ width: 1280, height: 720 });
    await expectBeside(page, "document.querySelector('#deep-target')", 60);
    await clickPart(page, 'primary-button');
    await expect.poll(() => title(page)).toBe('In a fixed box');
    await expectBeside(page, "document.querySelector('#fixed-target')", 60);
    await clickPart(page, 'primary-button');
    await expect.poll(() => title(page)).toBe('Under a transform');
    await expectBeside(page, "document.querySelector('#moved-target')", 60);
    // The tooltip follows the target as an ancestor's transform changes (a layout change, no scroll, no resize of it).
    await page.evaluate(
      () =>
        (document.querySelector<HTMLElement>('.transformed')!.style.transform = 'translate(200px, 60px) scale(0.9)'),
    );
    await expectBeside(page, "document.querySelector('#moved-target')", 60);
    // The next target sits under the header when its step opens (by key: the tooltip scrolled away with the page): it
    // is brought out from under it, and the tooltip (placed on top) is not under the header either.
    await page.evaluate(() =>
      scrollTo(0, document.querySelector<HTMLElement>('#top-target')!.getBoundingClientRect().top + scrollY - 30),
    );
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => title(page)).toBe('Under the header');
    await expectBeside(page, "document.querySelector('#top-target')", 60);
    await clickPart(page, 'primary-button');
    await expect.poll(() => recorded(env, userId, 'layouts')).toContain('COMPLETED_FLOW:header');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows a step whose target is in an open modal dialog above the dialog, where its buttons take clicks', async () => {
    const userId = newUserId('dialog');
    const { page, errors } = await openPage(
      env,
      '/dialog.html',
      `<dialog id="settings"><p>Settings</p><button id="dialog-target">Save settings</button></dialog>`,
      { userId },
    );
    await page.evaluate(() => document.querySelector<HTMLDialogElement>('#settings')!.showModal());
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'dialog' }), userId);
    await expect.poll(() => title(page)).toBe('In the dialog');
    await expectBeside(page, "document.querySelector('#dialog-target')");
    // What is under the tooltip's button is the tour, not the dialog's backdrop: the click reaches it.
    const button = (await rect(page, '[part="primary-button"]'))!;
    expect(
      await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.localName, [button.x + 5, button.y + 5]),
    ).toBe('onboarding-tour');
    await clickPart(page, 'primary-button');
    await expect.poll(() => title(page)).toBe('After');
    expect(await page.evaluate(() => document.querySelector<HTMLDialogElement>('#settings')!.open)).toBe(true);
    await expect.poll(() => recorded(env, userId, 'dialog')).toContain('COMPLETED_STEP:in-dialog');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('addresses a target inside a same-origin iframe with iframe#editor >>> .toolbar', async () => {
    const userId = newUserId('frame');
    const frame = `<body style='margin:0'><div style='height:120px'></div><div class='toolbar' style='margin-left:60px;width:160px;height:30px;background:#eee'>Bold Italic</div></body>`;
    const { page, errors } = await openPage(
      env,
      '/frame.html',
      `<div style="height: 90px"></div><iframe id="editor" style="margin-left: 100px; width: 500px; height: 300px; border: 2px solid #999" srcdoc="${frame}"></iframe>`,
      { userId },
    );
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'frame' }), userId);
    await expect.poll(() => title(page)).toBe('In the frame');
    await expectBeside(page, "document.querySelector('#editor').contentDocument.querySelector('.toolbar')");
    const tip = (await rect(page, '[part="base"]'))!;
    const toolbar = await topRect(page, "document.querySelector('#editor').contentDocument.querySelector('.toolbar')");
    expect(Math.abs(tip.x + tip.width / 2 - (toolbar.x + toolbar.width / 2))).toBeLessThan(2);
    expect(Math.abs(tip.y - (toolbar.y + toolbar.height + 12))).toBeLessThan(2);
    await clickPart(page, 'primary-button');
    await expect.poll(() => title(page)).toBe('End');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('counts hidden targets as missing, reports each, and uses the first visible of several matches', async () => {
    const userId = newUserId('hidden');
    const { page, errors } = await openPage(
      env,
      '/hidden.html',
      `<button id="none" style="display: none">None</button>
      <span id="zero" style="display: inline-block; width: 0; height: 0; overflow: hidden">Zero</span>
      <button id="invisible" style="visibility: hidden">Invisible</button>
      <button class="item" style="display: none">Hidden item</button>
      <div style="height: 100px"></div><button class="item" id="shown-item">Shown item</button>`,
      { userId },
    );
    await page.evaluate(() => {
      (window as unknown as { missing: unknown[] }).missing = [];
      window.Onboarding.on('target-missing', (event) =>
        (window as unknown as { missing: unknown[] }).missing.push(event),
      );
    });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'hidden' }), userId);
    await expect.poll(() => title(page)).toBe('First visible');
    await expectBeside(page, "document.querySelector('#shown-item')");
    await clickPart(page, 'primary-button');
    await expect.poll(() => recorded(env, userId, 'hidden')).toContain('COMPLETED_FLOW:many');
    expect(await page.evaluate(() => (window as unknown as { missing: unknown[] }).missing)).toEqual([
      { flowSlug: 'hidden', stepId: 'none', selector: '#none', page: '/hidden.html' },
      { flowSlug: 'hidden', stepId: 'zero', selector: '#zero', page: '/hidden.html' },
      { flowSlug: 'hidden', stepId: 'invisible', selector: '#invisible', page: '/hidden.html' },
    ]);
    await expect
      .poll(() => recorded(env, userId, 'hidden'))
      .toEqual(expect.arrayContaining(['SKIPPED_STEP:none', 'SKIPPED_STEP:zero', 'SKIPPED_STEP:invisible']));
    // Each is recorded with the user's tracking events, for the flow's analytics.
    await expect
      .poll(
        async () =>
          (
            await env.service.db.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM user_events WHERE user_id = $1 AND event = 'onboarding:target-missing'",
              [userId],
            )
          )[0]?.n,
      )
      .toBe(3);
    // And counted per step in the flow's analytics.
    const report = (await env.service.call('GET', '/v1/analytics/flows/hidden', { key: PRIVATE_KEY })).body;
    expect(
      Object.fromEntries(
        report.steps.map((step: { stepId: string; targetMissing: number }) => [step.stepId, step.targetMissing]),
      ),
    ).toEqual({ none: 1, zero: 1, invisible: 1, many: 0 });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('scrolls a target clear of a sticky header (scroll-padding-top), follows it when the app replaces it, hides while it is hidden and comes back with it', async () => {
    const userId = newUserId('comeback');
    // Below the fold, under a sticky header the page reserves room for with scroll-padding-top.
    const { page, errors } = await openPage(
      env,
      '/comeback.html',
      `<style>html { scroll-padding-top: 110px; } header { position: sticky; top: 0; height: 100px; background: #223; z-index: 3; }</style>
      <header>App</header><div style="height: 1500px"></div><div id="slot" style="padding: 100px"><button class="swap">First</button></div><div style="height: 1500px"></div>`,
      { userId },
    );
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'comeback' }), userId);
    await expectBeside(page, "document.querySelector('.swap')", 100);
    expect(await page.evaluate(() => scrollY)).toBeGreaterThan(1000);
    // Re-rendered by the app's framework: a new element, elsewhere.
    await page.evaluate(
      () =>
        (document.querySelector('#slot')!.innerHTML =
          '<div style="height: 900px"></div><button class="swap" style="margin-left: 300px">Second</button>'),
    );
    await expectBeside(page, "document.querySelector('.swap')", 100);
    await page.evaluate(() => (document.querySelector<HTMLElement>('.swap')!.style.display = 'none'));
    await expect.poll(() => rect(page, '[part="base"]')).toBeNull();
    await page.evaluate(() => (document.querySelector<HTMLElement>('.swap')!.style.display = ''));
    await expectBeside(page, "document.querySelector('.swap')", 100);
    await clickPart(page, 'primary-button');
    await expect.poll(() => recorded(env, userId, 'comeback')).toContain('COMPLETED_FLOW:swap');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('goes on across routes: waits on other pages, follows pushState and back, and resumes after a full page load', async () => {
    const userId = newUserId('routes');
    const body = `<button id="report">Report</button><div style="height: 80px"></div><button id="settings">Settings</button><div style="height: 80px"></div><button id="done">Done</button>`;
    env.site.page(
      '/app/done',
      `<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body><main>${body}</main>
      <script src="/onboarding.js"></script><script>Onboarding.init(${JSON.stringify({ publicKey: PUBLIC_KEY, apiUrl: env.service.url, userId })});</script></body></html>`,
    );
    const { page, errors } = await openPage(env, '/app/home', body, { userId });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'routes' }), userId);
    await page.waitForTimeout(500);
    expect(await rect(page, '[part="base"]')).toBeNull();
    await page.evaluate(() => history.pushState({}, '', '/app/reports/q3'));
    await expect.poll(() => title(page)).toBe('Reports');
    await expectBeside(page, "document.querySelector('#report')");
    await clickPart(page, 'primary-button');
    // The next step lives on another page: the tour waits, without closing.
    await page.waitForTimeout(300);
    expect(await rect(page, '[part="base"]')).toBeNull();
    expect((await serverState(env, userId, 'routes'))?.$state).toMatchObject({ completed: false, skipped: false });
    await page.evaluate(() => history.pushState({}, '', '/app/projects/7/settings'));
    await expect.poll(() => title(page)).toBe('Settings');
    await page.goBack();
    await expect.poll(() => rect(page, '[part="base"]')).toBeNull();
    await page.goForward();
    await expect.poll(() => title(page)).toBe('Settings');
    await expectBeside(page, "document.querySelector('#settings')");
    // Its button is a link to the next step's page: a full load, where the tour resumes.
    await Promise.all([page.waitForURL('**/app/done'), clickPart(page, 'primary-button')]);
    await expect.poll(() => title(page), { timeout: 8000 }).toBe('Done page');
    await expectBeside(page, "document.querySelector('#done')");
    expect(errors).toEqual([]);
    await page.close();
  });

  it('advances on a click of the target and on an element appearing; the spotlight lets clicks through to the target only', async () => {
    const userId = newUserId('advance');
    const { page, errors } = await openPage(
      env,
      '/advance.html',
      `<div style="height: 120px"></div><button id="save" style="margin-left: 200px">Save</button><div style="height: 120px"></div><button id="outside" style="margin-left: 200px">Outside</button>
      <script>window.clicks = []; for (const id of ['save', 'outside']) document.getElementById(id).addEventListener('click', () => clicks.push(id));</script>`,
      { userId },
    );
    const clicks = () => page.evaluate(() => (window as unknown as { clicks: string[] }).clicks);
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'advance' }), userId);
    await expect.poll(() => title(page)).toBe('Click Save');
    await expectBeside(page, "document.querySelector('#save')");
    // The page is blocked around the spotlight: a click elsewhere reaches nothing.
    const outside = await topRect(page, "document.querySelector('#outside')");
    await page.mouse.click(outside.x + 10, outside.y + 5);
    expect(await clicks()).toEqual([]);
    const save = await topRect(page, "document.querySelector('#save')");
    await page.mouse.click(save.x + 10, save.y + 5);
    expect(await clicks()).toEqual(['save']);
    await expect.poll(() => title(page)).toBe('Wait for the toast');
    // The element that appears is one the app already had, given the class at last (an attribute change, not an insertion).
    await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<div id="later">Saved</div>'));
    await page.waitForTimeout(200);
    expect(await title(page)).toBe('Wait for the toast');
    await page.evaluate(() => (document.querySelector('#later')!.className = 'toast'));
    await expect.poll(() => title(page)).toBe('Look, do not touch');
    await expectBeside(page, "document.querySelector('#save')");
    // With canClickTarget: false, the target takes no click either.
    await page.mouse.click(save.x + 10, save.y + 5);
    expect(await clicks()).toEqual(['save']);
    await expect
      .poll(() => recorded(env, userId, 'advance'))
      .toEqual(expect.arrayContaining(['COMPLETED_STEP:click', 'COMPLETED_STEP:appears']));
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('start rules (startWhen) in Chromium', () => {
  /** The text an element of ours shows in its shadow root ('' while it draws nothing). */
  const shown = (page: Page, host: string) =>
    page.evaluate((h) => document.querySelector(h)?.shadowRoot?.textContent?.replace(/\s+/g, ' ').trim() ?? '', host);
  const serviceRequests = (page: Page) => {
    const seen: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(env.service.url)) seen.push(new URL(request.url()).pathname);
    });
    return seen;
  };

  it('page: opens on matching paths, closes on an excluded or other path with its state unchanged, and opens again, across pushState and back, with no request', async () => {
    const userId = newUserId('start-page');
    const { page, errors } = await openPage(
      env,
      '/start/home',
      '<onboarding-banner flow="start-page"></onboarding-banner>',
      { userId, init: { refreshOnRouteChange: false } },
    );
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'start-page' }), userId);
    await expect.poll(() => shown(page, 'onboarding-banner')).toContain('Reports banner');
    // Its first showing is recorded (STARTED_FLOW, STARTED_STEP); from then on, route changes alone send nothing.
    await expect.poll(() => recorded(env, userId, 'start-page')).toContain('STARTED_STEP:b');
    await page.waitForFunction(() => !localStorage.getItem('onboarding:outbox'));
    const requests = serviceRequests(page);
    await page.evaluate(() => history.pushState({}, '', '/start/settings'));
    await expect.poll(() => shown(page, 'onboarding-banner')).toBe('');
    expect(await page.evaluate(() => window.Onboarding.getFlow('start-page')?.isVisible)).toBe(false);
    await page.evaluate(() => history.pushState({}, '', '/start/reports'));
    await expect.poll(() => shown(page, 'onboarding-banner')).toContain('Reports banner');
    await page.goBack();
    await expect.poll(() => shown(page, 'onboarding-banner')).toBe('');
    await page.evaluate(() => history.pushState({}, '', '/elsewhere'));
    await page.waitForTimeout(200);
    expect(await shown(page, 'onboarding-banner')).toBe('');
    await page.goBack();
    await page.goForward();
    await page.evaluate(() => history.replaceState({}, '', '/start/again'));
    await expect.poll(() => shown(page, 'onboarding-banner')).toContain('Reports banner');
    // Closing on another page is not a dismissal: nothing was written, and the service still shows it.
    expect(requests).toEqual([]);
    expect((await serverState(env, userId, 'start-page'))?.$state).toMatchObject({
      visible: true,
      skipped: false,
      completed: false,
    });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('element: opens once a matching element is on the page and visible, with the watcher loaded beside the script; until then it is not seen', async () => {
    const userId = newUserId('start-element');
    const { page, errors } = await openPage(env, '/element.html', '<p>Nothing yet</p>', { userId });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'start-element' }), userId);
    await page.waitForTimeout(600);
    expect(await shown(page, 'onboarding-announcement')).toBe('');
    // Hidden, it does not count.
    await page.evaluate(() =>
      document.body.insertAdjacentHTML(
        'beforeend',
        '<div id="late-panel" hidden style="width: 200px; height: 50px">Panel</div>',
      ),
    );
    await page.waitForTimeout(400);
    expect(await shown(page, 'onboarding-announcement')).toBe('');
    expect((await serverState(env, userId, 'start-element'))?.$state).toMatchObject({ started: false, skipped: false });
    await page.evaluate(() => document.getElementById('late-panel')!.removeAttribute('hidden'));
    await expect.poll(() => shown(page, 'onboarding-announcement')).toContain('The panel is here');
    // The start rules came with the watcher, from beside the script, as soon as a flow had a rule (issue 35).
    expect(
      await page.evaluate(
        () => [...document.scripts].filter((script) => script.src.endsWith('/onboarding-watch.js')).length,
      ),
    ).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('click: opens and starts the flow on a click of a matching element, and starts a dismissed one over', async () => {
    const userId = newUserId('start-click');
    const { page, errors } = await openPage(
      env,
      '/click.html',
      '<div style="height: 100px"></div><button id="take-tour" style="margin-left: 200px"><span>Take the tour</span></button>',
      { userId },
    );
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'start-click' }), userId);
    await page.waitForTimeout(600);
    expect(await title(page)).toBeNull();
    expect(await recorded(env, userId, 'start-click')).toEqual([]);
    // A click on the button's content counts as a click on the button.
    await page.click('#take-tour span');
    await expect.poll(() => title(page)).toBe('Tour by click');
    await expect.poll(() => recorded(env, userId, 'start-click')).toContain('STARTED_FLOW:one');
    await clickPart(page, 'close-button');
    await expect.poll(() => recorded(env, userId, 'start-click')).toContain('SKIPPED_FLOW:one');
    await expect.poll(() => title(page)).toBeNull();
    await page.click('#take-tour');
    await expect.poll(() => title(page)).toBe('Tour by click');
    // After the dismissal: the flow started over, then started (the step's own records aside).
    const flowActionsAfterSkip = async () => {
      const log = await recorded(env, userId, 'start-click');
      return log.slice(log.indexOf('SKIPPED_FLOW:one') + 1).filter((action) => /_FLOW:/.test(action));
    };
    await expect.poll(flowActionsAfterSkip).toEqual(['NOT_STARTED_FLOW:one', 'STARTED_FLOW:one']);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('delay: opens once the other rules held that long', async () => {
    const userId = newUserId('start-delay');
    const { page, errors } = await openPage(
      env,
      '/delay/home',
      '<onboarding-banner flow="start-delay"></onboarding-banner>',
      { userId },
    );
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'start-delay' }), userId);
    const start = Date.now();
    await page.waitForTimeout(700);
    expect(await shown(page, 'onboarding-banner')).toBe('');
    await expect.poll(() => shown(page, 'onboarding-banner'), { timeout: 5000 }).toContain('Delayed banner');
    expect(Date.now() - start).toBeGreaterThanOrEqual(1400);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('Onboarding.debug() in Chromium', () => {
  type Row = { flowSlug: string; visible: boolean; open: boolean; waitingFor: string | null };
  /** What debug() says of the debug-* flows, as slug: [visible, open, waitingFor]. */
  const why = async (page: Page) =>
    Object.fromEntries(
      ((await page.evaluate(() => window.Onboarding.debug())) as Row[])
        .filter((row) => row.flowSlug.startsWith('debug-'))
        .map((row) => [row.flowSlug, [row.visible, row.open, row.waitingFor]]),
    );
  const debugScripts = (page: Page) =>
    page.evaluate(() => [...document.scripts].filter((script) => script.src.endsWith('/onboarding-debug.js')).length);
  const BODY =
    '<onboarding-banner flow="debug-page"></onboarding-banner><button id="debug-start" style="margin: 200px">Start the tour</button>';

  it('says which flow waits for its page, a click, a missing target or an open modal, and which are open, as that changes', async () => {
    const userId = newUserId('debug');
    const { page, errors } = await openPage(env, '/debug/home', BODY, { userId });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'debug' }), userId);
    await waitForPart(page, 'onboarding-announcement [part="base"]');
    // Its code is not in the script: it comes from beside it on the first call, once.
    expect(await debugScripts(page)).toBe(0);
    await expect
      .poll(() => why(page))
      .toEqual({
        'debug-page': [true, false, 'page'],
        'debug-news': [true, true, null],
        'debug-tour': [true, false, 'modal'],
        'debug-click': [true, false, 'click'],
        'debug-target': [true, false, 'target'],
      });
    expect(await debugScripts(page)).toBe(1);

    // The announcement dismissed: it is no longer visible, and the tour behind it opens.
    await page.keyboard.press('Escape');
    await expect
      .poll(() => why(page))
      .toMatchObject({
        'debug-news': [false, false, null],
        'debug-tour': [true, true, null],
      });
    // The tour dismissed too, a click starts the click's tour; on the reports pages the banner opens.
    await page.keyboard.press('Escape');
    await expect.poll(async () => (await why(page))['debug-tour']).toEqual([false, false, null]);
    await page.click('#debug-start');
    await page.evaluate(() => history.pushState({}, '', '/debug/reports/q3'));
    await expect
      .poll(() => why(page))
      .toEqual({
        'debug-page': [true, true, null],
        'debug-news': [false, false, null],
        'debug-tour': [false, false, null],
        'debug-click': [true, true, null],
        'debug-target': [true, false, 'target'],
      });
    expect(await debugScripts(page)).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('prints a console table with { log: true }, and answers [] without throwing while its chunk cannot be had', async () => {
    const userId = newUserId('debug-log');
    const { page, errors } = await openPage(env, '/debug/home', BODY, { userId });
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'debug' }), userId);
    await waitForPart(page, 'onboarding-announcement [part="base"]');
    // The chunk unreachable: the promise resolves to nothing, and the page sees no error.
    await page.route('**/onboarding-debug.js', (route) => route.fulfill({ status: 404, body: '' }));
    expect(await page.evaluate(() => window.Onboarding.debug({ log: true }))).toEqual([]);
    await page.unroute('**/onboarding-debug.js');
    const tables: unknown[] = [];
    page.on('console', (message) => {
      if (message.type() === 'table') tables.push(message.args()[0].jsonValue());
    });
    const rows = await page.evaluate(() => window.Onboarding.debug({ log: true }));
    expect(rows.find((row) => row.flowSlug === 'debug-news')).toEqual({
      flowSlug: 'debug-news',
      visible: true,
      open: true,
      waitingFor: null,
    });
    await expect.poll(() => tables.length).toBe(1);
    expect(await tables[0]).toEqual(rows);
    // Without `log`, nothing is printed.
    await page.evaluate(() => window.Onboarding.debug());
    await page.waitForTimeout(100);
    expect(tables).toHaveLength(1);
    expect(errors).toEqual([]);
    await page.close();
  });
});
