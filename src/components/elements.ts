// The one table of the custom elements: each one's tag, class and chunk, and each chunk's gzip budget. Everything else that names an element follows from it.

/**
 * One row per element, in tag order.
 * - `tag`: its name in the page.
 * - `className`: its class, as `src/components/<chunk>/<name>.component.ts` exports it (`<name>` is the tag after
 *   `onboarding-`) and as the package exports it (components/classes.ts).
 * - `chunk`: the file of the script tag's build that defines it, `dist/onboarding-<chunk>.js`, which the script loads
 *   beside itself when a page draws the element; the tooltip is in the hint's.
 * - `budget`: that file's gzip budget in bytes (package.json's `budget`), on the first row of its chunk only.
 *
 * Plain data with no imports: the build (esbuild.config.mjs) reads it too, and the script tag's build carries only the
 * tag-to-chunk map of it (chunks/element-files.ts).
 */
export const ELEMENT_TABLE = [
  { tag: 'onboarding-announcement', className: 'OnboardingAnnouncement', chunk: 'announcement', budget: 2048 },
  { tag: 'onboarding-banner', className: 'OnboardingBanner', chunk: 'banner', budget: 1024 },
  { tag: 'onboarding-card', className: 'OnboardingCard', chunk: 'card', budget: 1024 },
  { tag: 'onboarding-checklist', className: 'OnboardingChecklist', chunk: 'checklist', budget: 3072 },
  { tag: 'onboarding-collection', className: 'OnboardingCollection', chunk: 'collection', budget: 1024 },
  { tag: 'onboarding-flow', className: 'OnboardingFlow', chunk: 'flow', budget: 2048 },
  { tag: 'onboarding-form', className: 'OnboardingForm', chunk: 'form', budget: 4096 },
  { tag: 'onboarding-hint', className: 'OnboardingHint', chunk: 'hint', budget: 11264 },
  { tag: 'onboarding-resource-center', className: 'OnboardingResourceCenter', chunk: 'resource-center', budget: 8192 },
  { tag: 'onboarding-survey', className: 'OnboardingSurvey', chunk: 'survey', budget: 4608 },
  { tag: 'onboarding-tooltip', className: 'OnboardingTooltip', chunk: 'hint' },
  { tag: 'onboarding-tour', className: 'OnboardingTour', chunk: 'tour', budget: 10240 },
] as const;

/** A row of the table. */
export type ElementRow = (typeof ELEMENT_TABLE)[number];
