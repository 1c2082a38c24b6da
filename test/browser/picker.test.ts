// The selector picker in Chromium: the live preview's bookmarklet run on an app page, the real mouse over generated
// names, duplicates, a shadow root and a same-origin frame, a click that copies and never reaches the app, and Escape.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPreview, type RunningPreview } from '../../server/preview/server.js';
import { launchChromium, type LaunchedBrowser } from '../support/chromium.js';
import { PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';
import { startStaticSite, type StaticSite } from '../support/static-site.js';

const dist = (file: string) => readFileSync(fileURLToPath(new URL(`../../dist/${file}`, import.meta.url)), 'utf8');

let service: TestService;
let preview: RunningPreview;
let site: StaticSite;
let browser: LaunchedBrowser;
let page: Page;
const requested: string[] = [];
const errors: string[] = [];
let bookmarklet = '';

// A dark, right-to-left app whose styles try to reach everything, with the names builds write.
const FRAME = `<body style="margin:0"><div class="toolbar" style="padding:10px"><button data-testid="bold" style="width:60px;height:30px">B</button></div>
  <script>document.addEventListener('click', (e) => parent.appEvents.push('frame click'));</script></body>`;

const APP = `<!doctype html><html lang="ar" dir="rtl"><head><meta charset="utf-8"><title>App</title><style>
    html { color-scheme: dark; }
    body { margin: 0; background: #101010; color: #eee; font: 16px serif; }
    * { color: red !important; font-family: cursive !important; outline: 3px dashed red !important; }
    onboarding-picker { display: none !important; }
    .abs { position: absolute; margin: 0; }
  </style></head><body>
  <header class="sc-bdfBwQ"><button data-testid="save" id="save-button" class="abs css-1x2y3z Button_primary__3kd9x" style="left:40px;top:40px;width:120px;height:40px">Save</button></header>
  <div id="toolbar" class="abs" style="left:200px;top:40px"><button id=":r1:" class="jsx-123456" style="width:80px;height:40px">Bold</button><button id="ember123" class="css-abc123" style="width:80px;height:40px">Italic</button></div>
  <section class="dups abs" style="left:40px;top:120px"><button data-testid="dup">A</button><button data-testid="dup">B</button><button data-testid="dup">C</button></section>
  <div class="abs" style="left:40px;top:170px"><div><div><div><div><a data-testid="deep" href="#">first</a></div></div></div></div></div>
  <div class="abs" style="left:140px;top:170px"><div><div><div><div><a data-testid="deep" href="#">second</a></div></div></div></div></div>
  <my-widget class="abs" style="left:40px;top:220px"></my-widget>
  <iframe id="editor" class="abs" style="left:300px;top:200px;width:300px;height:150px;border:5px solid #444;padding:7px" srcdoc="${FRAME.replace(/"/g, '&quot;')}"></iframe>
  <script>
    window.appEvents = [];
    for (const type of ['pointerdown', 'mousedown', 'click']) document.addEventListener(type, (e) => appEvents.push(type + ' ' + e.target.textContent));
    customElements.define('my-widget', class extends HTMLElement {
      constructor() {
        super();
        this.attachShadow({ mode: 'open' }).innerHTML = '<button class="css-9z8y7x" aria-label="Share" style="width:90px;height:30px">Share</button>';
      }
    });
  </script>
  <script src="/onboarding.js" data-public-key="${PUBLIC_KEY}" data-api-url="API_URL"></script>
</body></html>`;

beforeAll(async () => {
  service = await startTestService({});
  preview = await startPreview({ catalog: service.catalog, port: 0 });
  site = await startStaticSite();
  site.page('/app.html', APP.replace('API_URL', service.url));
  browser = await launchChromium();
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url });
  page = await browser.context.newPage();
  page.setDefaultTimeout(8000);
  await page.setViewportSize({ width: 1000, height: 700 });
  page.on('request', (request) => requested.push(request.url()));
  page.on('pageerror', (error) => errors.push(error.message));
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await preview?.close();
  await service?.close();
});

type Box = { x: number; y: number; width: number; height: number };

/** The element's box in the page's viewport: `expression` runs in the page and gives the element and its frame offset. */
function boxOf(expression: string): Promise<Box> {
  return page.evaluate((source) => {
    const [element, offset] = new Function(`return ${source}`)() as [Element, { x: number; y: number }];
    const r = element.getBoundingClientRect();
    return { x: r.x + offset.x, y: r.y + offset.y, width: r.width, height: r.height };
  }, expression);
}

const NO_OFFSET = '{ x: 0, y: 0 }';
/** The frame's content box, where its document's viewport starts: border 5px and padding 7px inside its border box. */
const FRAME_OFFSET =
  '(() => { const r = document.getElementById("editor").getBoundingClientRect(); return { x: r.x + 12, y: r.y + 12 }; })()';
const inFrame = (selector: string) =>
  `[document.getElementById("editor").contentDocument.querySelector(${JSON.stringify(selector)}), ${FRAME_OFFSET}]`;
const inPage = (selector: string) => `[document.querySelector(${JSON.stringify(selector)}), ${NO_OFFSET}]`;

async function pointAt(expression: string): Promise<Box> {
  const box = await boxOf(expression);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 2 });
  return box;
}

const panel = (selector: string) => page.locator(`onboarding-picker .panel ${selector}`);
const shown = () => panel('code').first().textContent();
const outline = () =>
  page.evaluate(() => {
    const r = document.querySelector('onboarding-picker')!.shadowRoot!.querySelector('.box')!.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });

async function expectOutlineOn(box: Box): Promise<void> {
  await expect.poll(outline).toEqual({
    x: expect.closeTo(box.x, 0),
    y: expect.closeTo(box.y, 0),
    width: expect.closeTo(box.width, 0),
    height: expect.closeTo(box.height, 0),
  });
}

describe('the selector picker in Chromium', () => {
  it('is offered by the live preview as a bookmarklet that carries the whole picker', async () => {
    await page.goto(preview.url);
    const link = page.locator('a#bookmarklet');
    bookmarklet = (await link.getAttribute('href'))!;
    const code = dist('onboarding-picker.js').replace(/\n\/\/# sourceMappingURL=\S*\s*$/, '');
    expect(bookmarklet.startsWith('javascript:')).toBe(true);
    expect(decodeURIComponent(bookmarklet.slice('javascript:'.length))).toBe(`${code};void 0`);
    expect(bookmarklet).not.toMatch(/[\n\r\t]/);
    expect(bookmarklet.length).toBeLessThan(12 * 1024);
    // The file itself, for a console where an app's policy stops bookmarklets.
    expect(await (await fetch(`${preview.url}onboarding-picker.js`)).text()).toBe(dist('onboarding-picker.js'));
    // Clicked on the preview itself, it explains where it belongs instead of running.
    await link.click();
    await expect.poll(() => page.locator('#picker-note').textContent()).toContain('bookmarks bar');
    expect(await page.locator('onboarding-picker').count()).toBe(0);
  });

  it('is never loaded for a visitor: the script tag page asks for no picker, and the script holds none of it', async () => {
    await page.goto(`${site.url}/app.html`);
    await page.evaluate(() => window.Onboarding.ready);
    expect(requested.some((url) => url.endsWith('/onboarding.js'))).toBe(true);
    expect(requested.filter((url) => url.includes('picker'))).toEqual([]);
    expect(dist('onboarding.js')).not.toContain('onboarding.picker');
    expect(dist('onboarding.js')).not.toContain('first visible one is used');
    // The service serves the script and its chunks, not the picker.
    expect([...service.script!.files.keys()]).toContain('onboarding-tour.js');
    expect([...service.script!.files.keys()].filter((name) => name.includes('picker'))).toEqual([]);
  });

  it('starts from the bookmarklet in the top layer, its own look untouched by the page, and respects reduced motion', async () => {
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await page.evaluate((href) => {
      location.href = href;
    }, bookmarklet);
    await page.waitForFunction(() => document.querySelector('onboarding-picker'));
    const look = await page.evaluate(() => {
      const host = document.querySelector('onboarding-picker')!;
      const shadow = host.shadowRoot!;
      const style = getComputedStyle(shadow.querySelector('.panel')!);
      return {
        open: host.matches(':popover-open'),
        display: getComputedStyle(host).display,
        color: style.color,
        font: style.fontFamily,
        direction: style.direction,
        transition: getComputedStyle(shadow.querySelector('.box')!).transitionDuration,
      };
    });
    expect(look).toEqual({
      open: true,
      display: 'block',
      color: 'rgb(243, 244, 246)',
      font: 'system-ui, sans-serif',
      direction: 'ltr',
      transition: '0.08s',
    });
    await page.emulateMedia({ reducedMotion: 'reduce' });
    expect(
      await page.evaluate(
        () =>
          getComputedStyle(document.querySelector('onboarding-picker')!.shadowRoot!.querySelector('.box')!)
            .transitionDuration,
      ),
    ).toBe('0s');
    expect(await panel('.hint').isVisible()).toBe(true);
  });

  it('outlines the element under the pointer and proposes its test id, matched once', async () => {
    const box = await pointAt(inPage('[data-testid="save"]'));
    await expectOutlineOn(box);
    await expect.poll(shown).toBe('[data-testid="save"]');
    expect(await panel('p').first().textContent()).toBe('matches 1 element');
  });

  it('never offers generated ids or classes: a path from the nearest stable ancestor instead', async () => {
    const box = await pointAt(inPage('#toolbar button:last-child'));
    await expectOutlineOn(box);
    await expect.poll(shown).toBe('#toolbar button:nth-of-type(2)');
  });

  it('tells duplicates apart, and warns when a selector matches more than one element', async () => {
    await pointAt(inPage('.dups button:nth-child(2)'));
    await expect.poll(shown).toBe('.dups [data-testid="dup"]:nth-of-type(2)');
    expect(await panel('p').first().textContent()).toBe('matches 1 element');
    await pointAt(inPage('[data-testid="deep"]'));
    await expect.poll(shown).toBe('[data-testid="deep"]');
    expect(await panel('p.warn').textContent()).toBe('⚠ matches 2 elements; the first visible one is used');
  });

  it('follows the pointer into an open shadow root and a same-origin frame', async () => {
    const share = await boxOf(
      '[document.querySelector("my-widget").shadowRoot.querySelector("button"), { x: 0, y: 0 }]',
    );
    await page.mouse.move(share.x + 10, share.y + 10);
    await expectOutlineOn(share);
    await expect.poll(shown).toBe('my-widget >>> button[aria-label="Share"]');
    const bold = await pointAt(inFrame('[data-testid="bold"]'));
    await expectOutlineOn(bold);
    await expect.poll(shown).toBe('#editor >>> [data-testid="bold"]');
    // ↑ goes to the parent, which stays while the pointer moves inside it; ↓ goes back.
    await page.keyboard.press('ArrowUp');
    await expect.poll(shown).toBe('#editor >>> .toolbar');
    await page.mouse.move(bold.x + 3, bold.y + 3, { steps: 2 });
    await expectOutlineOn(await boxOf(inFrame('.toolbar')));
    expect(await shown()).toBe('#editor >>> .toolbar');
    await page.keyboard.press('ArrowDown');
    await expect.poll(shown).toBe('#editor >>> [data-testid="bold"]');
  });

  it('picks on a click that the app never sees, and copies the flow file line', async () => {
    const bold = await boxOf(inFrame('[data-testid="bold"]'));
    await page.mouse.click(bold.x + 5, bold.y + 5);
    await expect.poll(() => panel('.line').textContent()).toBe('selector: "#editor >>> [data-testid=\\"bold\\"]"');
    const save = await pointAt(inPage('[data-testid="save"]'));
    await page.mouse.click(save.x + 5, save.y + 5);
    await expect.poll(() => panel('.line').textContent()).toBe('selector: "[data-testid=\\"save\\"]"');
    await expect
      .poll(() => page.locator('onboarding-picker [role="status"]').textContent())
      .toBe('Copied: paste it into the flow file.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('selector: "[data-testid=\\"save\\"]"');
    expect(await page.evaluate(() => (window as unknown as { appEvents: string[] }).appEvents)).toEqual([]);
  });

  it('closes from its button, and from a second click on the bookmarklet', async () => {
    await panel('button').click();
    expect(await page.locator('onboarding-picker').count()).toBe(0);
    const run = () =>
      page.evaluate((href) => {
        location.href = href;
      }, bookmarklet);
    await run();
    await page.waitForFunction(() => document.querySelector('onboarding-picker'));
    await run();
    await page.waitForFunction(() => !document.querySelector('onboarding-picker'));
    await run();
    await page.waitForFunction(() => document.querySelector('onboarding-picker'));
    expect(await page.evaluate(() => (window as unknown as { appEvents: string[] }).appEvents)).toEqual([]);
  });

  it('leaves on Escape, and the app gets its clicks again', async () => {
    await page.keyboard.press('Escape');
    expect(await page.locator('onboarding-picker').count()).toBe(0);
    const save = await boxOf(inPage('[data-testid="save"]'));
    await page.mouse.click(save.x + 5, save.y + 5);
    expect(await page.evaluate(() => (window as unknown as { appEvents: string[] }).appEvents)).toEqual([
      'pointerdown Save',
      'mousedown Save',
      'click Save',
    ]);
    expect(requested.filter((url) => url.includes('picker'))).toEqual([]);
    expect(errors).toEqual([]);
  });
});
