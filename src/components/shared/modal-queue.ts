// The collision rule: announcement, tour and survey flows queue for one modal slot, so two never open together.
import { atom } from 'nanostores';
import type { FlowType } from '../../api/wire.js';
import { $collections } from '../../stores/flows.js';

/**
 * Order, when the slot is free: the highest `props.priority` (a number on the flow's data, default 0) first; on a
 * tie, flows of collections in the order `collections.computedOrder` lists them (collections in file order, each
 * one's flows in its order), before flows in none; then ANNOUNCEMENT, TOUR, SURVEY; then the flow that asked first.
 * An open flow is never interrupted: a higher-priority flow that arrives later waits until it is completed,
 * dismissed or removed.
 */
export const MODAL_TYPE_ORDER: FlowType[] = ['ANNOUNCEMENT', 'TOUR', 'SURVEY'];

interface Claim {
  slug: string;
  type: FlowType;
  priority: number;
  seq: number;
  /** A place kept for a flow whose element is still loading: it ranks like a claim but never opens. */
  held?: true;
}

const claims = new Map<string, Claim>();
let seq = 0;
let scheduled = false;

/** The slug that holds the modal slot, or null. */
export const $activeModal = atom<string | null>(null);

/**
 * The element whose modal flow covers the page now (an announcement's dialog, a tour's overlay), or undefined: the
 * page behind it is inert, so the beacons and hover tooltips of other flows hide until it closes.
 */
export const $covered = atom<object | undefined>();

/** `owner` covers the page (`on` truthy) or no longer does; only the owner that covers it can uncover it. */
export function cover(owner: object, on: unknown): void {
  if (on) $covered.set(owner);
  else if ($covered.get() === owner) $covered.set(undefined);
}

function rank(a: Claim, b: Claim): number {
  const rows = $collections.get();
  // Unsigned, a flow in no collection (-1) comes after every flow in one.
  const place = (claim: Claim) => rows.findIndex((row) => row.flowId === claim.slug) >>> 0;
  return (
    b.priority - a.priority ||
    place(a) - place(b) ||
    MODAL_TYPE_ORDER.indexOf(a.type) - MODAL_TYPE_ORDER.indexOf(b.type) ||
    a.seq - b.seq
  );
}

const numeric = (priority: unknown) => (typeof priority === 'number' && Number.isFinite(priority) ? priority : 0);

function grant(): void {
  scheduled = false;
  if ($activeModal.get() !== null) return;
  const next = [...claims.values()].sort(rank)[0];
  if (next && !next.held) $activeModal.set(next.slug);
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
  claims.set(slug, { slug, type, priority: numeric(priority), seq: seq++ });
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

/**
 * Keeps a place in the queue for a flow whose element is still loading (an on-demand chunk), until the returned
 * function is called: nothing it outranks opens meanwhile, and a flow that outranks it opens at once.
 */
export function holdModal(type: FlowType, priority: unknown): () => void {
  // Starts with NUL, which no flow file's slug holds.
  const key = `\0${seq}`;
  claims.set(key, { slug: key, type, priority: numeric(priority), seq: seq++, held: true });
  return () => {
    if (claims.delete(key)) schedule();
  };
}
