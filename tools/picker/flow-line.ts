// The line an author pastes into a flow file for a picked selector, quoted so that YAML reads back the same text.

/** `text` as a YAML double-quoted scalar: backslashes, quotes and control or line-break characters escaped. */
export function yamlQuote(text: string): string {
  const escaped = text
    .replace(/[\\"]/g, '\\$&')
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `"${escaped}"`;
}

/** `selector: "…"`, ready to paste under a tour step, hint or tooltip. */
export function selectorLine(selector: string): string {
  return `selector: ${yamlQuote(selector)}`;
}
