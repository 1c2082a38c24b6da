// The resource centre's state, shared by the page's API and the element: whether its panel is open, and its unread count.
import { atom } from 'nanostores';

/** Whether the resource centre's panel is open (`Onboarding.resourceCenter.open()`, its launcher, Escape). */
export const $resourceCenterOpen = atom(false);

/**
 * The resource centre's badge: unread announcements of its feed plus open tasks of its checklist (core/resource-center.ts
 * counts them while the centre is on the page); 0 without one.
 */
export const $unread = atom(0);
