// The resource centre's logic, which its element only draws: the unread count, each listed flow's state, search over the
// flows' and links' text, starting or replaying a flow, and opening a chat provider's widget.
import { RESOURCE_CENTER_EVENT } from '../api/wire/common.js';
import type {
  ContactProvider,
  ResourceCenterBlock,
  ResourceCenterData,
  ResourceCenterEvent,
  ResourceLink,
} from '../api/wire.js';
import type { Flow } from '../flows/flow.js';
import { $flows } from '../stores/flows.js';
import { $unread } from '../stores/resource-center.js';
import { onboarding } from '../sdk.js';
import { blocksOf, list } from './resource-center-feed.js';

/** A listed flow as the user stands in it: not started, started, or completed. */
export type ItemState = 'new' | 'progress' | 'done';

/** What a block shows: its flows (a checklist's one, a list's or a feed's), its links, or (text, contact, search) itself. */
export interface ShownBlock {
  block: ResourceCenterBlock;
  flows: Flow[];
  links: ResourceLink[];
}

/** What the panel shows for a query: the blocks with something to show, and how many items the query found. */
export interface CentreView {
  blocks: ShownBlock[];
  results: number;
}

/** A dismissed flow the user has started is in progress, as one they left open is. */
export const itemState = (flow: Flow): ItemState =>
  flow.isCompleted ? 'done' : flow.isStarted || flow.isSkipped ? 'progress' : 'new';

/** An announcement is unread until the user has seen it: in the open panel, or as a modal (both record STARTED_FLOW). */
export const isUnread = (flow: Flow | undefined): boolean =>
  Boolean(flow && !flow.isStarted && !flow.isCompleted && !flow.isSkipped);

/** A checklist's open tasks: its visible steps neither completed nor skipped; none once it is finished or dismissed. */
export const openTasks = (flow: Flow | undefined): number =>
  flow && flow.isVisible && !flow.isCompleted && !flow.isSkipped
    ? flow.steps.filter(({ state }) => state.visible && !state.completed && !state.skipped).length
    : 0;

/** The badge: unread announcements of the feeds (each counted once) plus the open tasks of the checklist blocks. */
export function unreadCount(data: Partial<ResourceCenterData> | undefined, flows: Record<string, Flow>): number {
  const counted = new Set<string>();
  let count = 0;
  for (const block of blocksOf(data)) {
    const slugs = block.type === 'announcements' ? list(block.flows) : block.type === 'checklist' ? [block.flow] : [];
    for (const slug of slugs) {
      if (counted.has(slug)) continue;
      counted.add(slug);
      count += block.type === 'checklist' ? openTasks(flows[slug]) : Number(isUnread(flows[slug]));
    }
  }
  return count;
}

/**
 * Keeps `$unread` at the count of the centre `slug` while it is on the page; the returned function stops and puts it
 * back to 0.
 */
export function followUnread(slug: string): () => void {
  const stop = $flows.subscribe((flows) =>
    $unread.set(unreadCount(flows[slug]?.data as Partial<ResourceCenterData>, flows)),
  );
  return () => {
    stop();
    $unread.set(0);
  };
}

/** Lower case and without accents, so `resume` finds `Résumé`. */
const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

/** The words of a query; an item matches when its text holds every one. */
export const queryWords = (query: string): string[] => fold(query).split(/\s+/).filter(Boolean).slice(0, 16);

/** Whether the texts (rich text taken as plain, tags left out) hold every word; no words match everything. */
export function matches(words: string[], texts: unknown[]): boolean {
  if (!words.length) return true;
  const haystack = fold(
    texts
      .filter((text) => typeof text === 'string')
      .join(' ')
      .replace(/<[^>]*>/g, ' '),
  );
  return words.every((word) => haystack.includes(word));
}

/** What search reads of a flow: its name and title, and the titles and text of its steps. */
export const flowTexts = (flow: Flow): unknown[] => [
  flow.name,
  flow.data.title,
  flow.data.subtitle,
  ...flow.steps.flatMap((step) => [step.title, step.subtitle]),
];

/**
 * What the panel shows for `query`: without one, every block with something to show; with one, the search field, the
 * flows, announcements and links whose text holds it, a checklist whose title or steps do, and text and contact blocks
 * whose own text does. `results` counts the items found (each flow, link, checklist, text or contact block).
 */
export function centreView(
  data: Partial<ResourceCenterData> | undefined,
  flows: Record<string, Flow>,
  query = '',
): CentreView {
  const words = queryWords(query);
  const blocks: ShownBlock[] = [];
  let results = 0;
  for (const block of blocksOf(data)) {
    const shown: ShownBlock = { block, flows: [], links: [] };
    const slugs =
      block.type === 'checklist'
        ? [block.flow]
        : block.type === 'flows' || block.type === 'announcements'
          ? list(block.flows)
          : [];
    for (const slug of slugs) {
      const flow = flows[slug];
      if (flow && matches(words, flowTexts(flow))) shown.flows.push(flow);
    }
    if (block.type === 'links' && Array.isArray(block.links))
      for (const link of block.links) {
        if (!link || typeof link !== 'object') continue;
        const target = 'flow' in link ? flows[link.flow] : undefined;
        // A link to a flow the user is not eligible for has nowhere to go.
        if ('flow' in link && !target) continue;
        if (matches(words, [link.title, ...(target ? flowTexts(target) : [])])) shown.links.push(link);
      }
    const own =
      block.type === 'text' ? [block.title, block.text] : block.type === 'contact' ? [block.title] : undefined;
    const found = shown.flows.length + shown.links.length + (own && words.length && matches(words, own) ? 1 : 0);
    results += found;
    if (block.type === 'search' || found || (own && !words.length)) blocks.push(shown);
  }
  return { blocks, results };
}

/**
 * Starts a flow from the centre, as a start rule's click does (page/start-rules.ts): one that is finished or dismissed
 * starts over first, which is how a user replays a tour. Never rejects.
 */
export async function startFlow(slug: string): Promise<void> {
  const flow = $flows.get()[slug];
  if (!flow) return;
  if (flow.isCompleted || flow.isSkipped) await flow.restart();
  const now = $flows.get()[slug];
  if (now && !now.isStarted) await now.start();
}

type Widgets = Record<string, ((...args: unknown[]) => unknown) & Record<string, never>>;

/** Each provider's call that opens its widget, as its JavaScript API documents it. */
const OPENERS: Record<ContactProvider, (w: Widgets) => unknown> = {
  intercom: (w) => w.Intercom('show'),
  crisp: (w) => (w.$crisp as unknown as unknown[][]).push(['do', 'chat:open']),
  hubspot: (w) => (w.HubSpotConversations as unknown as { widget: { open(): void } }).widget.open(),
  zendesk: (w) => w.zE('messenger', 'open'),
  helpscout: (w) => w.Beacon('open'),
};

/**
 * Opens the provider's widget when it is on the page; false when it is not (or its call failed), so the contact block
 * follows its `url` instead.
 */
export function openContact(provider: unknown): boolean {
  if (typeof provider !== 'string' || !Object.prototype.hasOwnProperty.call(OPENERS, provider)) return false;
  try {
    OPENERS[provider as ContactProvider](globalThis as unknown as Widgets);
    return true;
  } catch {
    // Not on the page: `window.Intercom` and the like are undefined, and calling them throws.
    return false;
  }
}

/** Records a click or a search as the tracked event `onboarding:resource-center`, through the outbox as `track` does. */
export function record(properties: ResourceCenterEvent): void {
  void onboarding.track(RESOURCE_CENTER_EVENT, { ...properties });
}
