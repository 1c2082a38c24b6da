// Auto-mount: eligible ANNOUNCEMENT, TOUR, SURVEY, HINT, TOOLTIP and RESOURCE_CENTER flows get an element at the end of <body> without any markup.
import type { FlowType } from '../../api/wire.js';
import { $flows } from '../../stores/flows.js';
import { $elementOptions } from '../../stores/options.js';
import { MODAL_TYPE_ORDER } from './modal-queue.js';
import { tagOf, wantElement } from './on-demand.js';
import { $placedFlows, autoMounted } from './placement.js';
import { doc as read } from '../../page/document.js';

/** The auto-mounted types: the modal ones, those that point at page elements, and the resource centre; each element is named after its type. */
const TYPES: FlowType[] = [...MODAL_TYPE_ORDER, 'HINT', 'TOOLTIP', 'RESOURCE_CENTER'];
const TAGS = TYPES.map(tagOf);

/**
 * Keeps one element per eligible modal flow in the document, unless the page placed its own, auto-mount is off
 * (`autoMount: false`), or the slug is not in the `autoMount` list. Of the resource centres, only the first by
 * `props.priority` gets one. Returns a function that stops and cleans up.
 */
export function startAutoMount(doc: Document = document): () => void {
  const mounted = new Map<string, Element>();
  const registry = read('defaultView', doc)?.customElements;
  const sync = () => {
    const { autoMount } = $elementOptions.get();
    const placed = $placedFlows.get();
    const wanted = new Map<string, string>();
    const open = Object.values($flows.get()).filter((flow) => flow.isVisible && !flow.isCompleted && !flow.isSkipped);
    // One resource centre: the first by priority (a stable sort keeps the first of a tie).
    const centre = open
      .filter((flow) => flow.type === 'RESOURCE_CENTER')
      .sort((a, b) => +(b.data.props?.priority ?? 0) - +(a.data.props?.priority ?? 0))[0];
    for (const flow of open) {
      const tag = TAGS[TYPES.indexOf(flow.type)];
      if (!tag || autoMount === false || (Array.isArray(autoMount) && !autoMount.includes(flow.slug))) continue;
      if (placed[flow.slug] || (flow.type === 'RESOURCE_CENTER' && flow !== centre)) continue;
      wanted.set(flow.slug, tag);
      // The script tag loads these elements on demand: this flow is a reason to.
      if (!registry?.get(tag)) wantElement(tag, flow);
    }
    for (const [slug, element] of mounted) {
      if (wanted.get(slug) === element.localName) continue;
      element.remove();
      mounted.delete(slug);
    }
    // The body we append to, as the browser has it: a page's `<img name="body">` is no place for an element.
    const body = read('body', doc);
    if (!body) return;
    for (const [slug, tag] of wanted) {
      if (mounted.has(slug) || !registry?.get(tag)) continue;
      const element = read('createElement', doc)(tag);
      autoMounted.add(element);
      element.setAttribute('flow', slug);
      body.append(element);
      mounted.set(slug, element);
    }
  };
  const stops = [$flows.listen(sync), $elementOptions.listen(sync), $placedFlows.listen(sync)];
  // An element defined later (loaded on demand) is mounted once it is.
  for (const tag of TAGS) if (!registry?.get(tag)) void registry?.whenDefined(tag).then(sync);
  if (!read('body', doc)) read('addEventListener', doc)('DOMContentLoaded', sync, { once: true });
  sync();
  return () => {
    for (const stop of stops) stop();
    read('removeEventListener', doc)('DOMContentLoaded', sync);
    for (const element of mounted.values()) element.remove();
    mounted.clear();
  };
}
