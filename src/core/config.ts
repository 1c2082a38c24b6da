// What the SDK's setup calls take: init's configuration and identify's options.
import type { ElementOptions } from '../stores/options.js';
import type { ForwardTarget } from './forward.js';

export interface OnboardingConfig extends Partial<ElementOptions> {
  /** The public API key (`pk_…`). Required. */
  publicKey: string;
  /** Base address of the onboarding service. Required. */
  apiUrl: string;
  /** Identifies this user right away, as `identify(userId, undefined, { userHash })` would. @default undefined (a guest) */
  userId?: string;
  /** The hash of `userId` for identity verification, from your backend. @default undefined */
  userHash?: string;
  /** Reloads state when the SPA route changes (history and hash navigation). @default true */
  refreshOnRouteChange?: boolean;
  /** Sends flow and step events to PostHog and/or Segment when they are on the page. @default undefined (nothing is sent) */
  forward?: ForwardTarget | ForwardTarget[];
  /**
   * The language flows are read in (`fr-CA`), as `setLocale` would set it. Without it, the user property `locale`,
   * else the browser's language. @default undefined
   */
  locale?: string;
}

export interface IdentifyOptions {
  /**
   * hex(HMAC-SHA256(identity secret, userId)) from your backend, for a service that verifies identity. It is sent
   * in the body of every request for this user and kept with the user ID across reloads and tabs.
   */
  userHash?: string;
}
