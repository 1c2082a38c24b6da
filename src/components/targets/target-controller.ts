// A Lit controller that finds one step's target and keeps finding it: on its page, late, replaced, hidden, or missing and reported.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { emit } from '../shared/events.js';
import { onNavigate, pageMatches } from '../../page/pages.js';
import { watchTarget } from '../../page/watch.js';

/** The step a controller finds the target of. */
export interface TargetStep {
  flowSlug: string;
  stepId: string;
  /** The selector; without one the step has no target (a centred tour step). */
  selector?: unknown;
  /** The path pattern of the page the step lives on; without one, every page. */
  page?: unknown;
  /** How long the target may stay missing before it counts as missing, in milliseconds. */
  timeout: number;
}

/** Each missing target reported on this page view, so a target that keeps going and coming is reported once. */
const reported = new Set<string>();

export class TargetController implements ReactiveController {
  /** The target: an element; null for a step without a selector; undefined while awaited, off its page or missing. */
  target: Element | null | undefined;
  /** Whether the target stayed missing for the step's timeout (it is still watched for, and shown if it comes). */
  missing = false;
  /** Whether the step lives on another page than this one. */
  offPage = false;
  #step: TargetStep | undefined;
  #key = '';
  #stopWatch: (() => void) | undefined;
  #stopNavigation: (() => void) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly host: ReactiveControllerHost & HTMLElement,
    /** Called when the target is found missing, after the `onboarding-target-missing` event. */
    private readonly onMissing: (step: TargetStep) => void = () => {},
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    this.#stopNavigation = onNavigate(() => {
      const page = this.#step?.page;
      // Only a change of page that matters to the step starts it again: on its page or off it.
      if (typeof page === 'string' && page && pageMatches(page) === this.offPage) this.#restart();
    });
    if (this.#step) this.#restart();
  }

  hostDisconnected(): void {
    this.#stopNavigation?.();
    this.#stop();
  }

  /** Follows `step` (undefined: none). The same step again changes nothing. */
  follow(step: TargetStep | undefined): void {
    const key = step ? JSON.stringify([step.flowSlug, step.stepId, step.selector, step.page, step.timeout]) : '';
    if (key === this.#key) return;
    this.#key = key;
    this.#step = step;
    if (this.host.isConnected) this.#restart();
  }

  #restart(): void {
    this.#stop();
    this.target = undefined;
    this.missing = this.offPage = false;
    const step = this.#step;
    if (step) this.#start(step);
    this.host.requestUpdate();
  }

  #start(step: TargetStep): void {
    if (typeof step.page === 'string' && step.page && !pageMatches(step.page)) {
      this.offPage = true;
      return;
    }
    const selector = typeof step.selector === 'string' ? step.selector.trim() : '';
    if (!selector) {
      this.target = null;
      return;
    }
    this.#arm(step);
    this.#stopWatch = watchTarget(selector, (found) => {
      this.target = found ?? undefined;
      if (found) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
        this.missing = false;
      } else if (!this.missing) {
        // Gone (re-rendered, hidden, removed): waited for again, for as long.
        this.#arm(step);
      }
      this.host.requestUpdate();
    });
  }

  #arm(step: TargetStep): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.target) return;
      this.missing = true;
      this.host.requestUpdate();
      const page = location.pathname;
      const key = JSON.stringify([step.flowSlug, step.stepId, page]);
      if (!reported.has(key)) {
        reported.add(key);
        emit(this.host, 'onboarding-target-missing', {
          flowSlug: step.flowSlug,
          stepId: step.stepId,
          selector: String(step.selector),
          page,
        });
      }
      this.onMissing(step);
    }, step.timeout);
  }

  #stop(): void {
    this.#stopWatch?.();
    this.#stopWatch = undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
