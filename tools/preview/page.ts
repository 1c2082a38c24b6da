// The live preview's page (dist/preview/page.js): a section per flow with a frame in light, dark and RTL, redrawn on each reload event.
import type { PreviewFlow, PreviewFlowMessage, PreviewFlows, PreviewHeightMessage } from '../../src/api/preview.js';
import type { FlowType } from '../../src/api/wire.js';

/** A frame's theme, direction and caption. */
type Mode = readonly [theme: 'light' | 'dark', dir: 'ltr' | 'rtl', label: string];

const MODES: readonly Mode[] = [
  ['light', 'ltr', 'Light'],
  ['dark', 'ltr', 'Dark'],
  ['light', 'rtl', 'RTL'],
];
// Room for what floats over the frame: a modal, or a tooltip beside its stand-in target.
const MODAL_HEIGHT: Partial<Record<FlowType, number>> = {
  ANNOUNCEMENT: 460,
  TOUR: 440,
  SURVEY: 400,
  HINT: 360,
  TOOLTIP: 320,
};

const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const main = byId('flows');
const errorsBox = byId('errors');
const summary = byId('summary');
const live = byId('live');

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string | null,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function frameUrl(flow: PreviewFlow, mode: Mode, key: string): string {
  return `/preview/frame.html?slug=${encodeURIComponent(flow.slug)}&theme=${mode[0]}&dir=${mode[1]}&v=${encodeURIComponent(key)}`;
}

/** Reloads every frame of `within`: the flow starts again from its first step. */
function reloadFrames(within: ParentNode): void {
  within.querySelectorAll('iframe').forEach((frame) => frame.contentWindow!.location.reload());
}

function build(flow: PreviewFlow, key: string): HTMLElement {
  const section = el('section', 'flow');
  section.id = `flow-${flow.slug}`;
  section.dataset.key = key;
  section.dataset.type = flow.type;
  const head = el('header', 'flow-head');
  const meta = [flow.file, `v${flow.version}`, plural(flow.data.steps.length, 'step')];
  if (flow.status !== 'ACTIVE') meta.push(flow.status);
  if (flow.targetingLogic) meta.push(`for ${flow.targetingLogic}`);
  const restart = el('button', 'restart', 'Restart');
  restart.type = 'button';
  head.append(
    el('h2', null, flow.name),
    el('span', 'badge', flow.type),
    el('code', null, flow.slug),
    el('span', 'meta', meta.join(' · ')),
    restart,
  );
  const frames = el('div', 'frames');
  for (const mode of MODES) {
    const figure = el('figure', 'mode');
    const frame = document.createElement('iframe');
    frame.title = `${flow.name}, ${mode[2]}`;
    frame.dataset.slug = flow.slug;
    frame.dataset.mode = mode[2].toLowerCase();
    frame.dataset.min = String(MODAL_HEIGHT[flow.type] || 120);
    frame.style.height = `${frame.dataset.min}px`;
    frame.src = frameUrl(flow, mode, key);
    figure.append(el('figcaption', null, mode[2]), frame);
    frames.append(figure);
  }
  restart.addEventListener('click', () => reloadFrames(frames));
  section.append(head, frames);
  return section;
}

function render(state: PreviewFlows): void {
  const refused = state.errors.length;
  summary.textContent = plural(state.flows.length, 'flow') + (refused ? `, ${plural(refused, 'file')} refused` : '');
  errorsBox.textContent = '';
  errorsBox.hidden = !refused;
  for (const error of state.errors) {
    const box = el('article', 'error');
    box.dataset.file = error.file;
    const list = el('ul');
    for (const problem of error.problems) {
      list.append(
        el(
          'li',
          null,
          `${error.file}:${problem.line}:${problem.column}  ${problem.path ? `${problem.path}: ` : ''}${problem.message}`,
        ),
      );
    }
    box.append(el('h2', null, `${error.file} is refused`), list);
    errorsBox.append(box);
  }
  const kept = new Set<string>();
  state.flows.forEach((flow, index) => {
    const key = `${flow.file}@${flow.version}`;
    let section = document.getElementById(`flow-${flow.slug}`);
    if (section && section.dataset.key !== key && section.dataset.type === flow.type) {
      // Same flow, new version: the frames redraw in place, without loading the script again.
      const head = build(flow, key).querySelector('.flow-head')!;
      section.querySelector('.flow-head')!.replaceWith(head);
      section.dataset.key = key;
      const message: PreviewFlowMessage = { previewFlow: flow };
      section.querySelectorAll('iframe').forEach((frame) => frame.contentWindow!.postMessage(message, location.origin));
      const redrawn = section;
      head.querySelector('.restart')!.addEventListener('click', () => reloadFrames(redrawn));
    } else if (!section || section.dataset.key !== key) {
      const fresh = build(flow, key);
      if (section) section.replaceWith(fresh);
      section = fresh;
    }
    // Moving an iframe reloads it: move a section only when it is out of place.
    if (main.children[index] !== section) main.insertBefore(section, main.children[index] || null);
    kept.add(section.id);
  });
  for (const child of [...main.children]) if (!kept.has(child.id)) child.remove();
}

function load(): void {
  fetch('/preview/flows.json', { cache: 'no-store' })
    .then((response) => response.json() as Promise<PreviewFlows>)
    .then(render, () => {
      summary.textContent = 'The service does not answer.';
    });
}

window.addEventListener('message', (event: MessageEvent<Partial<PreviewHeightMessage> | null>) => {
  if (event.origin !== location.origin || !event.data || typeof event.data.previewHeight !== 'number') return;
  const height = event.data.previewHeight;
  document.querySelectorAll('iframe').forEach((frame) => {
    if (frame.contentWindow !== event.source) return;
    frame.style.height = `${Math.max(Number(frame.dataset.min), Math.min(height, 1200))}px`;
  });
});

// The bookmarklet is for the bookmarks bar: clicked here, it would only meet this page's script policy.
document.getElementById('bookmarklet')?.addEventListener('click', (event) => {
  event.preventDefault();
  byId('picker-note').textContent =
    'Drag the link to your bookmarks bar, then click the bookmark on a page of your app.';
});

const events = new EventSource('/preview/events');
events.addEventListener('reload', (event) => render(JSON.parse((event as MessageEvent<string>).data) as PreviewFlows));
events.addEventListener('open', () => live.classList.remove('off'));
events.addEventListener('error', () => live.classList.add('off'));
load();
