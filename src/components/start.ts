// Starts the elements once per page: auto-mount, and the script tag's nonce and data-auto-mount (the script tag's file defines no element itself: each comes from its chunk).
import { $elementOptions } from '../stores/options.js';
import { startAutoMount } from './shared/auto-mount.js';
import { currentScript } from '../page/document.js';

let autoMountStarted = false;

/** Options on the script tag itself: its `nonce` (or `data-nonce`) and `data-auto-mount` ("false" or slugs, comma-separated). */
function readScriptTag(): void {
  const script = currentScript();
  if (!script) return;
  const nonce = script.nonce || script.dataset.nonce;
  const auto = script.dataset.autoMount?.trim();
  const autoMount =
    auto === undefined || auto === '' || auto === 'true'
      ? undefined
      : auto === 'false'
        ? false
        : auto.split(/[\s,]+/).filter(Boolean);
  if (!nonce && autoMount === undefined) return;
  $elementOptions.set({
    ...$elementOptions.get(),
    ...(nonce ? { nonce } : {}),
    ...(autoMount !== undefined ? { autoMount } : {}),
  });
}

/**
 * Once per page: starts auto-mount and applies the `nonce` option to the `<style>` fallback Lit uses where
 * constructable stylesheets are missing. Called while the script tag runs, it also reads the tag's `nonce` and
 * `data-auto-mount`; the nonce has to be known before the elements first render, which for elements already in the
 * markup is now. The script tag's build calls this alone: its elements are defined by their chunks.
 */
export function startElements(): void {
  if (autoMountStarted || typeof document === 'undefined') return;
  autoMountStarted = true;
  readScriptTag();
  $elementOptions.subscribe(({ nonce }) => {
    if (nonce) (globalThis as { litNonce?: string }).litNonce = nonce;
  });
  startAutoMount(document);
}
