// What the on-demand tour chunk takes from the script that loaded it: the same Lit, the same stores and shared element code.
import { css, html, nothing } from 'lit';
import { runAction } from '../shared/actions.js';
import baseStyles from '../shared/base.styles.js';
import { emit } from '../shared/events.js';
import { deepActiveElement, ModalSlot } from '../shared/modal-slot.js';
import { OnboardingElement } from '../shared/onboarding-element.js';

/** Where the chunk finds the host; esbuild.config.mjs maps the chunk's imports of these modules to it. */
export const TOUR_HOST = Symbol.for('onboarding.tour-host');

/** Keys are the chunk's import specifiers (shared modules by file name); each holds the names it imports. */
export function provideTourHost(): void {
  (globalThis as Record<symbol, unknown>)[TOUR_HOST] = {
    lit: { css, html, nothing },
    actions: { runAction },
    'base.styles': { default: baseStyles },
    events: { emit },
    'modal-slot': { deepActiveElement, ModalSlot },
    'onboarding-element': { OnboardingElement },
  };
}
