// Failure reporting: never throws into the page; one deduped console warning per failure code.

type ErrorListener = (error: unknown, code: string) => void;

const listeners = new Set<ErrorListener>();
const warned = new Set<string>();

export function onError(listener: ErrorListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function reportError(code: string, error: unknown): void {
  for (const listener of listeners) {
    try {
      listener(error, code);
    } catch {
      // A failing listener must not stop the others.
    }
  }
  if (warned.has(code)) return;
  warned.add(code);
  const message = error instanceof Error ? error.message : String(error);
  // The one line the script writes to the console: once per kind of failure, for the page's developer.
  // eslint-disable-next-line no-console
  console.warn(`[onboarding] ${code}: ${message}`);
}
