// Loads what is kept out of the script tag's file from beside the script: the elements (each from its chunk, as the table of elements says) once a page draws one, the element watcher of start rules, the forwarding of events, and the built-in strings of the locale.
import { reportError } from '../../core/errors.js';
import { $elementOptions } from '../../stores/options.js';
import type { OnboardingStrings } from '../shared/strings.js';
import { stringsFileOf } from '../shared/locale.js';
import { STRINGS_CHUNK } from '../strings/define.js';
import { setStartRules, WATCH_CHUNK } from '../../page/rules.js';
import { $flowDefinitions, $held } from '../../stores/flows.js';
import type { Flow } from '../../flows/flow.js';
import { holdModal, MODAL_TYPE_ORDER } from '../shared/modal-queue.js';
import { setElementLoader } from '../shared/on-demand.js';
import { provideChunkHost } from './chunk-host.js';
import { doc } from '../../page/document.js';
import { INTEGRITY } from './integrity.js';
import { HASH_INDEX } from './hash-index.js';
import { fileOf, ON_DEMAND } from './element-files.js';
import { FORWARD_CHUNK, setForwarder, type Forwarder } from '../../core/forwarding.js';
import { debugFlows, setDebugger } from '../../core/debugging.js';
import { EVENT_NAMES } from '../../core/checks.js';
import type { OnboardingEventName } from '../../core/events.js';

/** Longest a modal flow's place is kept for a chunk, so a chunk that never comes holds nothing up. */
const HOLD_MS = 3000;

/** The address of `<file>.js` beside the script. */
const beside = (scriptSrc: string | undefined, file: string): string =>
  new URL(`${file}.js`, scriptSrc || location.href).href;

/**
 * Adds `<file>.js`, from beside the script, as a script with the tag's `nonce` and the file's SHA-384 as its
 * `integrity` (the script's own list, else `hash`, from a file it checked): the browser runs it only if its bytes are
 * the build's (a changed file fails to load; from another origin it is fetched with CORS, which the check needs).
 * `done` runs once it loaded or failed. Returns its address.
 */
function loadBeside(
  scriptSrc: string | undefined,
  nonce: () => string | undefined,
  file: string,
  done: () => void,
  hash = INTEGRITY[file],
): string {
  const script = doc('createElement')('script');
  script.src = beside(scriptSrc, file);
  script.integrity = `sha384-${hash}`;
  script.crossOrigin = 'anonymous';
  script.async = true;
  const value = nonce();
  if (value) script.nonce = value;
  script.onload = script.onerror = done;
  (doc('head') ?? doc('documentElement')).append(script);
  return script.src;
}

/** The loads waiting for dist/onboarding-hashes.js, while it loads. */
const waiting: Array<() => void> = [];

/**
 * Loads `<file>.js` as loadBeside does, with its SHA-384 from dist/onboarding-hashes.js: the hashes of the files few
 * pages load (each language's strings, forwarding, debug()), loaded first, once (checked by its own hash here), so
 * the script carries one hash for them all. `done` runs once the file loaded or failed, or the hashes did not come
 * (the next file asks for them again). Returns the file's address.
 */
function loadIndexed(
  scriptSrc: string | undefined,
  nonce: () => string | undefined,
  file: string,
  done: () => void,
): string {
  const global = globalThis as Record<symbol, Record<string, string> | undefined>;
  const load = () => {
    const hashes = global[HASH_INDEX];
    if (hashes) loadBeside(scriptSrc, nonce, file, done, hashes[file]);
    else done();
  };
  if (global[HASH_INDEX]) load();
  else if (waiting.push(load) === 1)
    loadBeside(scriptSrc, nonce, 'onboarding-hashes', () => {
      for (const next of waiting.splice(0)) next();
    });
  return beside(scriptSrc, file);
}

/**
 * Loads an element's chunk (as a script with the tag's `nonce`, for a CSP that asks for one) once, when:
 * - the page places the element, in its markup or later (watched until every chunk has been asked for);
 * - auto-mount would mount it for a flow (tours, surveys), or `<onboarding-flow>` is to draw a flow with it.
 * While it loads for a modal flow, that flow keeps its place in the modal queue.
 */
export function loadElementsOnDemand(scriptSrc: string | undefined, nonce: () => string | undefined): void {
  /** Each chunk asked for, settled a task after its element is defined (it claims the slot in its first update) or when it failed. */
  const chunks = new Map<string, Promise<unknown>>();
  const held = new Set<string>();
  const load = (tag: string): Promise<unknown> => {
    const file = fileOf(tag);
    let chunk = chunks.get(file);
    if (chunk) return chunk;
    // A failure to load it is `form-failed`, `hint-failed`, ….
    const name = file.slice('onboarding-'.length);
    chunk = new Promise((settle) => {
      void customElements.whenDefined(tag).then(() => setTimeout(settle, 0));
      const fail = (error: unknown) => {
        settle(0);
        reportError(`${name}-failed`, error);
      };
      try {
        provideChunkHost();
        // Loaded, a chunk has defined its element as it ran; one that did not (a page of HTML served in its place, a
        // chunk of another build that threw) failed as surely as one that never came.
        const src = loadBeside(
          scriptSrc,
          nonce,
          file,
          () => customElements.get(tag) || fail(new Error(`Could not load ${src}; ${name}s are not shown.`)),
        );
      } catch (error) {
        fail(error);
      }
    });
    chunks.set(file, chunk);
    return chunk;
  };

  /** Loads `tag`'s chunk unless it is defined (by this chunk, or another copy of the elements on the page). */
  const want = (tag: string, flow?: Flow): boolean => {
    if (!ON_DEMAND.includes(tag)) return false;
    if (customElements.get(tag)) return true;
    const chunk = load(tag);
    if (flow && MODAL_TYPE_ORDER.includes(flow.type) && !held.has(flow.slug)) {
      held.add(flow.slug);
      const release = holdModal(flow.type, flow.data.props?.priority);
      setTimeout(release, HOLD_MS);
      void chunk.then(release);
    }
    return true;
  };
  setElementLoader(want);
  // The start rules (and their element watcher) are dist/onboarding-watch.js, loaded once a flow has one; until they
  // run, each flow with rules is held (closed, its state untouched), as under a rule that does not hold yet.
  setStartRules(() => {
    let stop: (() => void) | undefined;
    let asked: string | 0 | undefined;
    const unlisten = $flowDefinitions.subscribe((definitions) => {
      const ruled = Object.keys(definitions).filter((slug) => definitions[slug].data.startWhen);
      if (stop || !ruled.length) return;
      $held.set(new Set(ruled));
      if (asked) return;
      provideChunkHost();
      asked = loadBeside(scriptSrc, nonce, 'onboarding-watch', () => {
        const watch = (globalThis as Record<symbol, unknown>)[WATCH_CHUNK];
        if (typeof watch !== 'function')
          reportError('watch-failed', Error(`Could not load ${asked}; flows with start rules are not shown.`));
        else if (asked) {
          unlisten();
          stop = (watch as () => () => void)();
        }
      });
    });
    return () => {
      unlisten();
      stop?.();
      asked = 0;
      $held.set(new Set());
    };
  });

  // Forwarding (init's `forward`) is dist/onboarding-forward.js, loaded when init asks for it; the SDK's events of the
  // meantime are kept and sent first.
  setForwarder((on, forward) => {
    const early: Array<[OnboardingEventName, unknown]> = [];
    const stops = (EVENT_NAMES.split(' ') as OnboardingEventName[]).map((name) =>
      on(name, (event) => early.push([name, event])),
    );
    const src = loadIndexed(scriptSrc, nonce, 'onboarding-forward', () => {
      for (const stop of stops) stop();
      const start = (globalThis as Record<symbol, unknown>)[FORWARD_CHUNK];
      if (typeof start === 'function') (start as Forwarder)(on, forward, early);
      else reportError('forward-failed', Error(`Could not load ${src}; events are not forwarded.`));
    });
  });

  // Onboarding.debug() is dist/onboarding-debug.js, loaded on its first call: it replaces this loader as it runs.
  setDebugger(function load(options) {
    return new Promise<void>((loaded) => {
      provideChunkHost();
      loadIndexed(scriptSrc, nonce, 'onboarding-debug', loaded);
    }).then(() => (debugFlows === load ? [] : debugFlows(options)));
  });

  /** Loads the chunk of `root`, and of each element inside it, that loads on demand. */
  const findPlaced = (root: Element) => {
    for (const element of [root, ...root.querySelectorAll(ON_DEMAND.join())] as Element[]) {
      // The page's content for a CUSTOM flow stays hidden until the element, once loaded, decides to show it: an
      // empty shadow root draws none of it, and Lit renders into that root when the element upgrades.
      if (element.localName === 'onboarding-flow' && !customElements.get('onboarding-flow') && !element.shadowRoot)
        element.attachShadow({ mode: 'open' });
      want(element.localName);
    }
  };
  // From the root element, not the document: a page's `<img name="querySelectorAll">` shadows the document's method.
  findPlaced(doc('documentElement'));
  // Watched until every chunk has been asked for.
  const observer = new MutationObserver((records) => {
    for (const record of records) for (const node of record.addedNodes) if (node instanceof Element) findPlaced(node);
    if (chunks.size === new Set(ON_DEMAND.map(fileOf)).size) observer.disconnect();
  });
  observer.observe(document, { childList: true, subtree: true });
}

/**
 * Loads the built-in strings of the resolved locale, `onboarding-strings-<code>.js` beside the script, once per language
 * and as soon as the locale is known (at init, so beside the first state read, not after it), and hands them to the
 * elements. Their hashes come first, in `onboarding-hashes.js` (see loadIndexed): a page in English loads neither.
 * English is in the script; a page's `strings` override any of them.
 */
export function loadStringsOnDemand(scriptSrc: string | undefined, nonce: () => string | undefined): void {
  const loaded: Record<string, Record<string, string>> = {};
  const asked = new Set<string>();
  const global = globalThis as Record<symbol, unknown>;
  const fail = (name: string) =>
    reportError('strings-failed', new Error(`Could not load ${name}.js; elements show English.`));
  const apply = () => {
    const options = $elementOptions.get();
    const file = stringsFileOf(options.locale);
    if (file && !asked.has(file)) {
      asked.add(file);
      const name = `onboarding-strings-${file}`;
      loadIndexed(scriptSrc, nonce, name, () => loaded[file] || fail(name));
    }
    const strings = file ? loaded[file] : undefined;
    if (options.localeStrings !== strings) $elementOptions.set({ ...options, localeStrings: strings });
  };
  global[STRINGS_CHUNK] = (code: string, strings: OnboardingStrings) => {
    loaded[code] = strings as unknown as Record<string, string>;
    apply();
  };
  $elementOptions.subscribe(apply);
}
