// The flow file format: a RESOURCE_CENTER's `data`, its launcher and its blocks (issue 37).
import type { ModalFlowProps } from './flow-file-props.js';

/** Where the floating launcher sits. */
export type LauncherPlacement = 'bottom-right' | 'bottom-left' | 'top-right' | 'top-left';

/** What opens the resource centre: a floating button, or an element of the host page. */
export interface ResourceCenterLauncher {
  /** The floating button's corner. @default "bottom-right" */
  placement?: LauncherPlacement;
  /** Text beside the launcher's icon. */
  label?: string;
  /**
   * An element of the host page (its own "?" button) that opens the centre instead of a floating button; it carries
   * the unread count as `data-onboarding-unread` (absent at 0). @format css-selector
   */
  selector?: string;
}

/** What every block has. */
export interface ResourceCenterBlockBase {
  /** Unique in the flow; clicks are counted by it. @pattern ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$ */
  id: string;
  /** The block's heading. */
  title?: string;
  /** CEL, evaluated by the service as targeting is: when false, the block is not sent to the user at all. */
  visibleWhen?: string;
}

/** The user's checklist, live, with its progress; its steps act as they do in `<onboarding-checklist>`. */
export interface ChecklistBlock extends ResourceCenterBlockBase {
  type: 'checklist';
  /** The slug of a CHECKLIST flow. */
  flow: string;
}

/** Flows to start or replay, each with the user's state (new, in progress, done). */
export interface FlowsBlock extends ResourceCenterBlockBase {
  type: 'flows';
  /** Flow slugs, in the order shown. @minItems 1 */
  flows: string[];
}

/** A what's-new feed of announcements, unread until seen in the open panel. */
export interface AnnouncementsBlock extends ResourceCenterBlockBase {
  type: 'announcements';
  /** Slugs of ANNOUNCEMENT flows, newest first. @minItems 1 */
  flows: string[];
  /** Whether a listed announcement also opens as a modal by itself (once, as any announcement). @default false */
  popup?: boolean;
}

/** A link to a page, or to a flow that it starts. */
export type ResourceLink =
  | {
      title: string;
      /** http(s), `mailto:` or a relative path. @format resource-link */
      url: string;
      target?: '_self' | '_blank';
    }
  | {
      title: string;
      /** The slug of the flow the link starts. */
      flow: string;
    };

/** Links to pages (http(s), `mailto:` or relative) or flows. */
export interface LinksBlock extends ResourceCenterBlockBase {
  type: 'links';
  /** @minItems 1 */
  links: ResourceLink[];
}

/** Rich text, in the same safe subset as step subtitles. */
export interface TextBlock extends ResourceCenterBlockBase {
  type: 'text';
  /** The text; rich text allowed. @minLength 1 */
  text: string;
}

/** A field that filters every block's items as the user types, step text included; in the page, with no request. */
export interface SearchBlock extends ResourceCenterBlockBase {
  type: 'search';
  /** The field's placeholder. @default "Search" */
  placeholder?: string;
}

/** Chat and support tools the contact block opens through their JavaScript API when their widget is on the page. */
export type ContactProvider = 'intercom' | 'crisp' | 'hubspot' | 'zendesk' | 'helpscout';

/** A way to reach the team: the provider's widget when on the page, else `url`. */
export interface ContactBlock extends ResourceCenterBlockBase {
  type: 'contact';
  /** The block's heading, which is also what the user clicks: required here. @minLength 1 */
  title: string;
  provider?: ContactProvider;
  /** Followed without the provider's widget: a `mailto:` or a page (http(s) or a relative path). @format resource-link */
  url?: string;
}

export type ResourceCenterBlock =
  ChecklistBlock | FlowsBlock | AnnouncementsBlock | LinksBlock | TextBlock | SearchBlock | ContactBlock;

/** The `data` block of a RESOURCE_CENTER. It has no steps (served as `steps: []`). */
export interface ResourceCenterData {
  /** The panel's heading. @minLength 1 */
  title: string;
  /** What opens the centre. */
  launcher?: ResourceCenterLauncher;
  /** The blocks, in order. @minItems 1 */
  blocks: ResourceCenterBlock[];
  /** Options; `priority` picks the centre when several are eligible (the highest; the first on a tie). */
  props?: ModalFlowProps;
  /** Not used: a resource centre has no steps. @maxItems 0 */
  steps?: [];
}

/** One locale's text of a resource centre's block (`translations.<locale>.blocks.<block id>`). */
export interface BlockTranslation {
  /** The block's heading. */
  title?: string;
  /** A `text` block's text. */
  text?: string;
  /** A `search` block's placeholder. */
  placeholder?: string;
  /**
   * A `links` block's link titles, by the link's place in `links` counted from 0 (`"0"`, `"1"`): a link to a page
   * and a link to a flow alike, and two links to one address apart. @keyPattern ^(0|[1-9][0-9]{0,3})$
   */
  links?: Record<string, string>;
}
