// Reads the document through Document.prototype, which the page's named elements (`<img name="currentScript">`) cannot shadow as they do `document`'s own properties.

/** `document[key]` as the browser defines it, whatever the page's named elements are; a method comes bound to the document. */
export function doc<K extends keyof Document>(key: K, target: Document = document): Document[K] {
  const value = Reflect.get(Document.prototype, key, target) as Document[K];
  return typeof value == 'function' ? ((value as (...args: unknown[]) => unknown).bind(target) as Document[K]) : value;
}

/** Listens to the document's `type` events (through its prototype, as `doc`); returns a function that stops. */
export function onDocument(type: string, listener: EventListener, options?: AddEventListenerOptions): () => void {
  doc('addEventListener')(type, listener, options);
  return () => doc('removeEventListener')(type, listener);
}

/** The script tag running now, if it is one: a named element in its place is no script of ours. */
export function currentScript(): HTMLScriptElement | undefined {
  const script = doc('currentScript');
  return script instanceof HTMLScriptElement ? script : undefined;
}
