// Copies text to the clipboard with the async API, else with a selected textarea and execCommand; never throws.

/** Copies with a textarea placed in `scratch` (the picker's shadow root), then gives focus back. */
function copyBySelection(text: string, scratch: ParentNode): boolean {
  const doc = (scratch as Node).ownerDocument ?? document;
  const previous = doc.activeElement as HTMLElement | null;
  const area = doc.createElement('textarea');
  try {
    area.value = text;
    area.setAttribute('readonly', '');
    area.setAttribute('aria-hidden', 'true');
    area.style.cssText = 'position:fixed;top:0;left:0;width:1px;height:1px;opacity:0;pointer-events:none';
    scratch.append(area);
    area.focus({ preventScroll: true });
    area.select();
    return doc.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
    try {
      previous?.focus({ preventScroll: true });
    } catch {
      // Focus stays where it is.
    }
  }
}

/** Resolves to whether the text reached the clipboard. Call it from the click that asks for it (user activation). */
export async function copyText(text: string, scratch: ParentNode): Promise<boolean> {
  try {
    const clipboard = navigator.clipboard;
    if (clipboard?.writeText) {
      await clipboard.writeText(text);
      return true;
    }
  } catch {
    // Denied, or not a secure context: the older way may still work.
  }
  return copyBySelection(text, scratch);
}
