// The picker's judgement of names: generated ids, data values and class names are refused, human ones kept.
import { describe, expect, it } from 'vitest';
import { isHumanClass, isStableData, looksGenerated } from '../../tools/picker/stable-names.js';

describe('looksGenerated', () => {
  it('flags the ids that builds and frameworks write', () => {
    const generated = [
      ':r1:',
      ':R2dlb:',
      '«r3»',
      '_r_5_',
      'ember123',
      'mui-42',
      'headlessui-menu-button-3',
      'radix-7',
      'react-select-2-input',
      'mat-input-0',
      '3f2b8c1e-9a4d-4f6b-8e2a-1c5d7b9e0f3a',
      'panel-8f3a2b1c9d',
      'row-1712345678',
      'field_12345',
      'a1b2c3',
      'css-1x2y3z',
      'sc-bdfBwQ',
      'x-kQTMdH',
      'item-xkpzq',
      '',
    ];
    for (const value of generated) expect(looksGenerated(value), value).toBe(true);
  });

  it('keeps names a person gave', () => {
    for (const value of [
      'save',
      'main-nav',
      'step-2',
      'checkout_form',
      'search',
      'h1-title',
      'userMenu',
      'Save changes',
    ])
      expect(looksGenerated(value), value).toBe(false);
  });
});

describe('isHumanClass', () => {
  it('refuses generated, utility and state classes', () => {
    const refused = [
      'css-1x2y3z',
      'sc-bdfBwQ',
      'Button_primary__3kd9x',
      'Button_primary__aBcDe',
      'jsx-123456',
      '_a1b2c3',
      'emotion-abc',
      'flex',
      'text-center',
      'p-4',
      'mt-auto',
      'w-[37px]',
      'hover:bg-blue-500',
      'is-active',
      'active',
      'hidden',
      'ab',
      'svelte-xyzabc',
    ];
    for (const name of refused) expect(isHumanClass(name), name).toBe(false);
  });

  it('keeps lowercase words a person chose for what the element is', () => {
    for (const name of ['save-button', 'card__title', 'nav--main', 'sidebar', 'toolbar', 'menu_item'])
      expect(isHumanClass(name), name).toBe(true);
  });
});

describe('isStableData', () => {
  it('keeps data attributes that name the element in words', () => {
    expect(isStableData('data-section', 'pricing')).toBe(true);
    expect(isStableData('data-sidebar', 'main')).toBe(true);
    expect(isStableData('data-tour', 'reports-nav')).toBe(true);
  });

  it('refuses state, bookkeeping and generated values', () => {
    expect(isStableData('data-state', 'open')).toBe(false);
    expect(isStableData('data-headlessui-state', 'active')).toBe(false);
    expect(isStableData('data-v-7ba5bd90', '')).toBe(false);
    expect(isStableData('data-id', 'user')).toBe(false);
    expect(isStableData('data-row', '1712345678')).toBe(false);
    expect(isStableData('data-section', 'true')).toBe(false);
    expect(isStableData('data-label', 'Save changes')).toBe(false);
    expect(isStableData('aria-label', 'save')).toBe(false);
  });
});
