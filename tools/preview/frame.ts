// A live preview frame (dist/preview/frame.js): one flow drawn by the real element, whose buttons change only this frame's state.
import type { PreviewFlow, PreviewFlowMessage, PreviewFlows, PreviewHeightMessage } from '../../src/api/preview.js';
import type { FlowType, StepDefinition } from '../../src/api/wire.js';
import type { Flow, Step } from '../../src/flows/flow.js';

/** Where the frame's flow stands: the step shown, the steps done or skipped, and how the flow ended ('' while it runs). */
interface FrameState {
  current: number;
  completed: Record<string, boolean>;
  skipped: Record<string, boolean>;
  finished: '' | 'completed' | 'skipped';
}

/** The types whose steps point at an element: the preview draws a stand-in for each step's target. */
const TARGETED: ReadonlySet<FlowType> = new Set(['TOUR', 'HINT', 'TOOLTIP']);

const params = new URLSearchParams(location.search);
const slug = params.get('slug');
const theme = params.get('theme') === 'dark' ? 'dark' : 'light';
document.documentElement.dir = params.get('dir') === 'rtl' ? 'rtl' : 'ltr';
document.documentElement.dataset.theme = theme;
const stage = document.getElementById('stage')!;
const finished = document.getElementById('finished')!;
const dataBox = document.getElementById('data')!;
let definition: PreviewFlow | undefined;
let element: (HTMLElement & { currentFlow?: Flow }) | undefined;
let state: FrameState;

/** A step without its page: every step shows in the preview, whatever page it lives on. */
function anyPage(step: StepDefinition): StepDefinition {
  const copy = { ...step };
  delete copy.page;
  return copy;
}

function reset(): void {
  state = { current: 0, completed: {}, skipped: {}, finished: '' };
}

function open(step: StepDefinition): boolean {
  return !state.completed[step.id] && !state.skipped[step.id];
}

/** The next unfinished step after index, then from the start; -1 when none is left. */
function after(index: number): number {
  const steps = definition!.data.steps;
  for (let i = 1; i <= steps.length; i++) {
    const at = (index + i) % steps.length;
    if (open(steps[at])) return at;
  }
  return -1;
}

function show(data: unknown): void {
  dataBox.hidden = data === undefined;
  dataBox.textContent = data === undefined ? '' : `Sent as the step\u2019s data: ${JSON.stringify(data, null, 2)}`;
}

/** An action of the model: applies `change`, draws again, and resolves as the SDK's actions do. */
function act(change: (data?: unknown) => void): (data?: unknown) => Promise<void> {
  return (data) => {
    change(data);
    render();
    return Promise.resolve();
  };
}

function finishStep(index: number, how: 'completed' | 'skipped', data?: unknown): void {
  const id = definition!.data.steps[index].id;
  if (how === 'completed') {
    state.completed[id] = true;
    delete state.skipped[id];
  } else state.skipped[id] = true;
  show(data);
  const next = after(index);
  if (next < 0) state.finished = 'completed';
  else state.current = next;
}

/** A Flow object the elements can draw, whose actions change only this frame's state. */
function model(): Flow {
  const flow = definition!;
  const steps = flow.data.steps.map((step, index): Step => {
    const copy: Step = Object.assign(anyPage(step), {
      index,
      state: {
        started: index === state.current,
        completed: !!state.completed[step.id],
        skipped: !!state.skipped[step.id],
        visible: true,
        blocked: false,
      },
      start: act(() => {}),
      complete: act((data) => finishStep(index, 'completed', data)),
      skip: act((data) => finishStep(index, 'skipped', data)),
      reset: act(() => {
        delete state.completed[step.id];
        delete state.skipped[step.id];
        state.current = index;
      }),
    });
    if (TARGETED.has(flow.type) && step.selector) copy.selector = `[data-preview-target="${index}"]`;
    return copy;
  });
  const done = steps.filter((step) => step.state.completed || step.state.skipped).length;
  return {
    slug: flow.slug,
    name: flow.name,
    type: flow.type,
    version: flow.version,
    data: { ...flow.data, steps: flow.data.steps.map(anyPage) },
    steps,
    currentStep: steps[state.current],
    progress: state.finished === 'completed' ? 1 : steps.length ? done / steps.length : 0,
    isStarted: true,
    isCompleted: state.finished === 'completed',
    isSkipped: state.finished === 'skipped',
    isVisible: !state.finished,
    start: act(() => {}),
    complete: act(() => {
      state.finished = 'completed';
    }),
    skip: act(() => {
      state.finished = 'skipped';
    }),
    restart: act(reset),
    forward: act(() => finishStep(state.current, 'completed')),
    back: act(() => {
      if (state.current > 0) {
        state.current -= 1;
        delete state.completed[flow.data.steps[state.current].id];
        delete state.skipped[flow.data.steps[state.current].id];
      }
    }),
  };
}

/** A CUSTOM flow is drawn by the page; the preview shows what the page receives. */
function renderCustom(flow: Flow): void {
  stage.textContent = '';
  const step = flow.currentStep;
  if (!step || state.finished) return;
  const card = document.createElement('article');
  card.className = 'custom';
  const note = document.createElement('p');
  note.className = 'custom-note';
  note.textContent = 'CUSTOM: the page draws this step with <onboarding-flow>. It receives:';
  const title = document.createElement('h3');
  title.textContent = step.title || '';
  const subtitle = document.createElement('p');
  subtitle.textContent = step.subtitle || '';
  const props = document.createElement('pre');
  props.className = 'data';
  props.textContent = `props: ${JSON.stringify({ ...definition!.data.props, ...step.props }, null, 2)}`;
  const next = document.createElement('button');
  next.type = 'button';
  next.textContent = step.primaryButton?.title || 'Next';
  next.addEventListener('click', () => void flow.forward());
  card.append(note, title, subtitle, props, next);
  stage.append(card);
}

function render(): void {
  const flow = model();
  if (flow.type === 'CUSTOM') renderCustom(flow);
  else {
    if (!element) {
      if (TARGETED.has(flow.type)) {
        const targets = document.createElement('div');
        targets.className = 'targets';
        flow.data.steps.forEach((step, index) => {
          if (!step.selector) return;
          const target = document.createElement('div');
          target.className = 'target';
          target.dataset.previewTarget = String(index);
          target.textContent = step.selector;
          targets.append(target);
        });
        stage.append(targets);
      }
      element = document.createElement(`onboarding-${flow.type.toLowerCase()}`);
      element.setAttribute('theme', theme);
      stage.append(element);
    }
    element.currentFlow = flow;
  }
  finished.hidden = !state.finished;
  document.getElementById('finished-text')!.textContent = state.finished ? `The flow is ${state.finished}.` : '';
  requestAnimationFrame(postHeight);
}

function postHeight(): void {
  const message: PreviewHeightMessage = { previewHeight: document.documentElement.scrollHeight };
  parent.postMessage(message, location.origin);
}

document.getElementById('again')!.addEventListener('click', () => {
  reset();
  show(undefined);
  render();
});
new ResizeObserver(postHeight).observe(document.body);

function draw(flow: PreviewFlow | undefined): void {
  definition = flow;
  if (!definition) {
    stage.textContent = `No flow "${slug}" is loaded.`;
    return;
  }
  // A new version may change the steps or the tour's targets: draw everything anew.
  stage.textContent = '';
  element = undefined;
  reset();
  show(undefined);
  render();
}

// The page hands over a new version of the flow: draw it again from the start.
window.addEventListener('message', (event: MessageEvent<Partial<PreviewFlowMessage> | null>) => {
  if (event.origin === location.origin && event.source === parent && event.data && event.data.previewFlow)
    draw(event.data.previewFlow);
});
void fetch('/preview/flows.json', { cache: 'no-store' })
  .then((response) => response.json() as Promise<PreviewFlows>)
  .then((all) => draw(all.flows.filter((flow) => flow.slug === slug)[0]));
