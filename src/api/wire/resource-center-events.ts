// The tracking event the resource centre records through the users upsert: a click on one of its items, or a search.

/** The event's name, as the users upsert's `events` carry it. */
export const RESOURCE_CENTER_EVENT = 'onboarding:resource-center';

/** The properties of an `onboarding:resource-center` event. */
export interface ResourceCenterEventProperties {
  /** The slug of the RESOURCE_CENTER flow. */
  flow: string;
  /** A click on an item, or a search (recorded when the user pauses or submits, not on every key). */
  action: 'click' | 'search';
  /** The `id` of the block the item or the search field is in. */
  block: string;
  /** What was clicked: a flow's slug, a link's URL, or `contact`. */
  item?: string;
  /** The search's text, as typed (trimmed). */
  query?: string;
  /** How many items the search found. */
  results?: number;
}
