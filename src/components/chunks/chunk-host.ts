// What the on-demand chunks (announcement, banner, card, checklist, collection, flow, form, hint, resource centre, survey, tour, the start rules' and debug()'s) take from the script that loaded them: the same Lit, stores and shared element code.
import { css, html, LitElement, nothing } from 'lit';
import { BUTTON_ACTIONS } from '../../api/wire.js';
import { $collections, $flowDefinitions, $flows, $flowStates, $held, $ineligibleFlows } from '../../stores/flows.js';
import { reportError } from '../../core/errors.js';
import { safeTarget, safeUrl } from '../../api/url.js';
import { $resourceCenterOpen, $unread } from '../../stores/resource-center.js';
import { onboarding } from '../../sdk.js';
import { runAction } from '../shared/actions.js';
import baseStyles from '../shared/base.styles.js';
import { emit } from '../shared/events.js';
import { deepActiveElement, ModalSlot } from '../shared/modal-slot.js';
import { $activeModal, $covered, cover, MODAL_TYPE_ORDER } from '../shared/modal-queue.js';
import { tagOf, wantElement } from '../shared/on-demand.js';
import { OnboardingElement } from '../shared/onboarding-element.js';
import { StoreController } from '../shared/store-controller.js';
import { setDebugger } from '../../core/debugging.js';

/** Where a chunk finds the host; esbuild.config.mjs maps the chunk's imports of these modules to it. */
export const CHUNK_HOST = Symbol.for('onboarding.chunk-host');

/**
 * Puts the host where the chunks find it: a list, not an object, as names would cost the script's bytes. The build
 * reads this file: each item is one of the imports above, and a chunk's import of that name from that module becomes
 * a read of the item at its index. A chunk importing anything else from outside its folder fails the build.
 */
export function provideChunkHost(): void {
  (globalThis as Record<symbol, unknown>)[CHUNK_HOST] = [
    css,
    html,
    nothing,
    runAction,
    baseStyles,
    emit,
    deepActiveElement,
    ModalSlot,
    OnboardingElement,
    LitElement,
    StoreController,
    $collections,
    $flows,
    BUTTON_ACTIONS,
    tagOf,
    wantElement,
    $covered,
    cover,
    $flowDefinitions,
    $flowStates,
    $held,
    reportError,
    $resourceCenterOpen,
    $unread,
    safeUrl,
    safeTarget,
    onboarding,
    $activeModal,
    $ineligibleFlows,
    MODAL_TYPE_ORDER,
    setDebugger,
  ];
}
