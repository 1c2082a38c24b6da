// The collision rule: announcement, tour and survey flows queue for one modal slot, so two never open together.
import { atom } from 'nanostores';
import type { FlowType } from '../../api/wire.js';

/**
 * Order, when the slot is free: the highest `props.priority` (a number on the flow's data, default 0) first;
 * on a tie ANNOUNCEMENT, then TOUR, then SURVEY; then the flow that asked first. An open flow is never
 * interrupted: a higher-priority flow that arrives later waits until it is completed, dismissed or removed.
 */
export const MODAL_TYPE_ORDER: FlowType[] = ['ANNOUNCEMENT', 'TOUR', 'SURVEY'];

interface Claim {
  slug: string;
  type: FlowType;
  priority: number;
  seq: number;
}

const claims = new Map<string, Claim>();
let seq = 0;
let scheduled = false;

/** The slug that holds the modal slot, or null. */
export const $activeModal = atom<string | null>(null);

function rank(a: Claim, b: Claim): number {
  return b.priority - a.priority || MODAL_TYPE_ORDER.indexOf(a.type) - MODAL_TYPE_ORDER.indexOf(b.type) || a.seq - b.seq;
}

/** Holds on the slot: while one is in place, nothing opens (the tour chunk is loading). */
let holds = 0;

function grant(): void {
  scheduled = false;
  if ($activeModal.get() !== null || holds > 0) return;
  const next = [...claims.values()].sort(rank)[0];
  if (next) $activeModal.set(next.slug);
}

// Granting waits a task so every flow that became eligible in the same store update is ranked together.
function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setTimeout(grant, 0);
}

/** Asks for the slot; the element opens when `$activeModal` names its slug. */
export function requestModal(slug: string, type: FlowType, priority: unknown): void {
  if (claims.has(slug)) return;
  claims.set(slug, { slug, type, priority: typeof priority === 'number' && Number.isFinite(priority) ? priority : 0, seq: seq++ });
  schedule();
}

/** Gives the slot (or the place in the queue) up. */
export function releaseModal(slug: string): void {
  claims.delete(slug);
  if ($activeModal.get() === slug) {
    $activeModal.set(null);
    schedule();
  }
}

/** Keeps the slot from being given until the returned function is called (once), so a flow still loading keeps its place. */
export function holdModal(): () => void {
  holds++;
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    holds--;
    schedule();
  };
}
