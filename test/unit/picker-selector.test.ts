// The selector the picker proposes: stable hooks in their order, short paths anchored at a hook, `>>>` into shadow
// roots (frames, which happy-dom does not load, are tested in Chromium), and the line to paste into a flow file.
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deepSelectAll } from '../../tools/picker/deep-select.js';
import { selectorLine, yamlQuote } from '../../tools/picker/flow-line.js';
import { proposeSelector } from '../../tools/picker/propose-selector.js';

function mount(html: string): HTMLElement {
  const main = document.createElement('main');
  main.innerHTML = html;
  document.body.append(main);
  return main;
}

const pick = (selector: string) => document.querySelector(selector)!;

afterEach(() => {
  document.body.textContent = '';
});

describe('proposeSelector', () => {
  it('prefers a test attribute to an id, a label and generated classes', () => {
    mount('<button data-testid="save" id="save-button" aria-label="Save" class="css-1x2y3z sc-bdfBwQ">Save</button>');
    expect(proposeSelector(pick('button'))).toEqual({ selector: '[data-testid="save"]', count: 1, first: true });
  });

  it('takes the test attributes in their order, then other stable data attributes', () => {
    mount('<a data-cy="docs" data-qa="docs-link">Docs</a><section data-section="pricing" data-state="open"></section>');
    expect(proposeSelector(pick('a')).selector).toBe('[data-cy="docs"]');
    expect(proposeSelector(pick('section')).selector).toBe('[data-section="pricing"]');
  });

  it('uses an id that a person gave, and never a generated one', () => {
    mount(
      '<input id="search"><div id=":r1:"><button id="ember123" class="Button_primary__3kd9x" aria-label="Close">×</button></div>',
    );
    expect(proposeSelector(pick('input')).selector).toBe('#search');
    expect(proposeSelector(pick('button')).selector).toBe('button[aria-label="Close"]');
  });

  it('names an element by its role and label, or by its name', () => {
    mount('<div role="button" aria-label="Open menu"></div><input name="email">');
    expect(proposeSelector(pick('div')).selector).toBe('[role="button"][aria-label="Open menu"]');
    expect(proposeSelector(pick('input')).selector).toBe('input[name="email"]');
  });

  it('uses a human class only when it is unique', () => {
    mount('<div class="jsx-123456 sidebar"></div><p class="note"></p><p class="note"></p>');
    expect(proposeSelector(pick('div')).selector).toBe('.sidebar');
    const second = document.querySelectorAll('p')[1];
    // The shared class ends the path, told apart by its place among the paragraphs.
    expect(proposeSelector(second)).toEqual({ selector: 'main .note:nth-of-type(2)', count: 1, first: true });
  });

  it('builds a short path from the nearest ancestor with a hook, with :nth-of-type only where siblings share a tag', () => {
    mount(
      '<ul data-testid="menu"><li><a class="css-abc123">One</a></li><li><span></span><a class="css-def456">Two</a></li></ul>',
    );
    const two = document.querySelectorAll('a')[1];
    expect(proposeSelector(two)).toEqual({
      selector: '[data-testid="menu"] li:nth-of-type(2) > a',
      count: 1,
      first: true,
    });
  });

  it('tells duplicated hooks apart, and keeps a hook over a long path for the first of them', () => {
    mount(`<div class="dups"><button data-testid="dup">A</button><button data-testid="dup">B</button></div>
      <div><div><div><div><div><button data-testid="deep">1</button></div></div></div></div></div>
      <div><div><div><div><div><button data-testid="deep">2</button></div></div></div></div></div>`);
    expect(proposeSelector(document.querySelectorAll('[data-testid="dup"]')[1])).toEqual({
      selector: '.dups [data-testid="dup"]:nth-of-type(2)',
      count: 1,
      first: true,
    });
    // A unique path would take six steps of bare divs: the hook matches twice, and this one first.
    expect(proposeSelector(document.querySelector('[data-testid="deep"]')!)).toEqual({
      selector: '[data-testid="deep"]',
      count: 2,
      first: true,
    });
  });

  it('always matches the element it was asked for, first', () => {
    mount(`<nav><a>Home</a><a>Docs</a></nav><section><article><h2>One</h2><p>Text <b>bold</b></p></article>
      <article><h2>Two</h2><p>Text <b>bold</b></p></article></section>`);
    for (const element of document.querySelectorAll('main *')) {
      const { selector, count, first } = proposeSelector(element);
      expect(first, selector).toBe(true);
      expect(count, selector).toBe(1);
      expect(deepSelectAll(selector)[0]).toBe(element);
    }
  });

  it('crosses into an open shadow root with >>>', () => {
    const main = mount('<my-widget></my-widget><div class="card"></div>');
    const root = main.querySelector('my-widget')!.attachShadow({ mode: 'open' });
    root.innerHTML = '<button class="css-1x2y3z" data-testid="inner">Go</button><span></span><span></span>';
    const shadowHost = main.querySelector('.card')!.attachShadow({ mode: 'open' });
    shadowHost.innerHTML = '<button aria-label="Share">Share</button>';
    expect(proposeSelector(root.querySelector('button')!)).toEqual({
      selector: 'my-widget >>> [data-testid="inner"]',
      count: 1,
      first: true,
    });
    expect(proposeSelector(shadowHost.querySelector('button')!).selector).toBe('.card >>> button[aria-label="Share"]');
    expect(deepSelectAll('my-widget >>> span')).toHaveLength(2);
    // At the top of a shadow root, the host anchors the path.
    expect(proposeSelector(root.querySelectorAll('span')[1])).toEqual({
      selector: 'my-widget >>> :host span:nth-of-type(2)',
      count: 1,
      first: true,
    });
  });
});

describe('the flow file line', () => {
  it('quotes the selector as YAML that reads back the same', () => {
    expect(selectorLine('[data-testid="save"]')).toBe('selector: "[data-testid=\\"save\\"]"');
    for (const selector of [
      '[data-testid="save"]',
      '#a\\:b',
      'my-widget >>> .inner',
      'a[title="x: y # z"]',
      "it's\ttabbed\n",
      '[aria-label="Ünïcode \u2028"]',
    ]) {
      expect(parse(selectorLine(selector))).toEqual({ selector });
      expect(parse(`key: ${yamlQuote(selector)}`).key).toBe(selector);
    }
  });
});
