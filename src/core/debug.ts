// Onboarding.debug(): for each flow the script holds, whether the service sent it visible, whether it is drawn on this page now, and what it waits for here.
import type { FlowType } from '../api/wire.js';
import type { Flow, Step } from '../flows/flow.js';
import { $flowDefinitions, $flows, $flowStates, $held, $ineligibleFlows, type StartWait } from '../stores/flows.js';
import { $activeModal, $covered, MODAL_TYPE_ORDER } from '../components/shared/modal-queue.js';
import { pageMatches } from '../page/pages.js';
import { deepQuery } from '../page/query.js';
import { onPage } from '../page/start-rules.js';
import { reportError } from './errors.js';
import type { DebugOptions, FlowDebug, WaitingFor } from './debugging.js';

/** Bounds the walk for our elements through the page's shadow roots, as the target search bounds its own. */
const MAX_ROOTS = 2000;

/** What holds a visible flow back on this page, each found on its own; waitingFor() picks the one to report. */
export interface PageFacts {
  /** Whether the service sent the flow visible. */
  visible: boolean;
  /** Whether it is completed or dismissed. */
  finished: boolean;
  /** Whether an element draws it now. */
  open: boolean;
  /** The start rule that holds it back, if one does. */
  startRule?: StartWait;
  /** Whether its steps (a tour's current one, a hint's open ones) all live on other pages. */
  stepsOffPage?: boolean;
  /** Whether every step it would point at here has no visible target. */
  targetMissing?: boolean;
  /** Whether another flow holds the modal slot (for a modal type) or covers the page (for a hint or tooltip). */
  modalOpen?: boolean;
}

/**
 * What a flow waits for: nothing when the service did not send it visible, when it is finished, or when it is open.
 * Else the first that holds, in the order the page gets to them: the start rules first, as they hold a flow back before
 * any element looks at it (its pages, then its element, its click, its delay), then what its element needs, the step's
 * page and target, then the modal slot. A flow that nothing holds back here and that no element draws (an inline
 * type without its element on the page, a hover tooltip not hovered, a chunk still loading) waits for nothing.
 */
export function waitingFor(facts: PageFacts): WaitingFor | null {
  if (!facts.visible || facts.finished || facts.open) return null;
  if (facts.startRule) return facts.startRule;
  if (facts.stepsOffPage) return 'page';
  if (facts.targetMissing) return 'target';
  return facts.modalOpen ? 'modal' : null;
}

/** The slugs of the flows one of our elements draws now: its shadow root holds a part of it (or a CUSTOM flow's slot). */
function drawnFlows(): Set<string> {
  const drawn = new Set<string>();
  const roots: ParentNode[] = [document];
  for (let i = 0; i < roots.length && i < MAX_ROOTS; i++) {
    for (const element of roots[i].querySelectorAll('*')) {
      const shadow = element.shadowRoot;
      if (!shadow) continue;
      roots.push(shadow);
      const slug = (element as { flow?: unknown }).flow;
      // `<onboarding-flow>` names its inner element `part="element"`: that one answers for itself.
      if (
        typeof slug === 'string' &&
        element.localName.startsWith('onboarding-') &&
        shadow.querySelector('[part]:not([part="element"]),slot')
      )
        drawn.add(slug);
    }
  }
  return drawn;
}

/**
 * The start rule holding `slug` back, as the rules keep it. While they load (or if they could not be loaded) the script
 * holds every flow with rules, without a reason: then the first rule in their order that does not hold yet, or whose
 * moment cannot be known here (an element seen, a click, a delay under way).
 */
function startRuleOf(slug: string): StartWait | undefined {
  const held = $held.get();
  if (!held.has(slug)) return undefined;
  if ('get' in held) return held.get(slug);
  const rules = $flowDefinitions.get()[slug]?.data.startWhen ?? {};
  if (!onPage(rules.page)) return 'page';
  if (rules.element) return 'element';
  return rules.click ? 'click' : 'delay';
}

/** The steps whose targets an element would point at now: a tour's or a tooltip's current step, a hint's open ones. */
function pointedSteps(flow: Flow): Step[] {
  if (flow.type === 'HINT')
    return flow.steps.filter(({ state }) => state.visible && !state.completed && !state.skipped && !state.blocked);
  return (flow.type === 'TOUR' || flow.type === 'TOOLTIP') && flow.currentStep ? [flow.currentStep] : [];
}

/** What holds `flow` back in its steps: all of them on other pages, or every target of those here missing. */
function stepFacts(flow: Flow | undefined): Pick<PageFacts, 'stepsOffPage' | 'targetMissing'> {
  const steps = flow ? pointedSteps(flow) : [];
  const here = steps.filter((step) => typeof step.page !== 'string' || !step.page || pageMatches(step.page));
  const selectors = here.map((step) => (typeof step.selector === 'string' ? step.selector.trim() : ''));
  return {
    stepsOffPage: steps.length > 0 && !here.length,
    // A tour step without a selector is centred: it points at nothing, so nothing is missing.
    targetMissing:
      selectors.length > 0 && selectors.every((selector) => selector && !deepQuery(selector, document, true)),
  };
}

/** Whether another flow holds the modal slot (`type` queues for it) or covers the page (`type` yields to a cover). */
function modalOpen(slug: string, type: FlowType | undefined): boolean {
  const active = $activeModal.get();
  if (type && MODAL_TYPE_ORDER.includes(type)) return active !== null && active !== slug;
  return (type === 'HINT' || type === 'TOOLTIP') && $covered.get() !== undefined;
}

/**
 * For each flow the script holds, the eligible ones in catalog order then the others the service named, why it is
 * or is not open on this page now; with `log`, printed as a table too. Never throws: a failure is reported and
 * answers [].
 */
export function explainFlows(options?: DebugOptions): FlowDebug[] {
  try {
    const states = $flowStates.get();
    const flows = $flows.get();
    const definitions = $flowDefinitions.get();
    const drawn = drawnFlows();
    const rows: FlowDebug[] = Object.values(states).map(({ flowSlug, $state }) => {
      const open = drawn.has(flowSlug);
      const type = definitions[flowSlug]?.type;
      const facts: PageFacts = {
        visible: $state.visible === true,
        finished: $state.completed || $state.skipped,
        open,
        startRule: startRuleOf(flowSlug),
        ...stepFacts(flows[flowSlug]),
        modalOpen: modalOpen(flowSlug, type),
      };
      return { flowSlug, visible: facts.visible, open, waitingFor: waitingFor(facts) };
    });
    for (const flowSlug of $ineligibleFlows.get())
      if (!states[flowSlug]) rows.push({ flowSlug, visible: false, open: false, waitingFor: null });
    // What the page asked for: a table in its console.
    // eslint-disable-next-line no-console
    if (options?.log) console.table(rows);
    return rows;
  } catch (error) {
    reportError('internal-error', error);
    return [];
  }
}
