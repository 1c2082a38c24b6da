// PostHog's product tours as flow files: reads the tours as PostHog's API lists them and writes each as our YAML (a survey step as a SURVEY flow of its own), with a # TODO where PostHog has what we do not.
import { Document, isMap, isScalar, type Pair } from 'yaml';
import { checkFlowText, type FlowProblem } from './definitions.js';
import { dateTimeProblem, linkProblem, pagePatternProblem, selectorProblem } from './formats.js';
import type { ConvertedFlow } from './from-frigade.js';
import { postHogContent, tipTapToHtml, type StepContent } from './posthog-html.js';
import { formatPath, type PathSegment } from './schema.js';

// The shapes below are posthog-js's (packages/browser/src/posthog-product-tours-types.ts: ProductTour, ProductTourStep,
// ProductTourConditions, ProductTourAppearance, ProductTourStepButton, ProductTourSurveyQuestion,
// ProductTourBannerConfig, ProductTourStepTranslation), with what PostHog's management API adds (ProductTourApi:
// `content`, `archived`, `targeting_flag_filters`, `linked_flag`).

/** A button of a PostHog step (`ProductTourStepButton`). */
interface PostHogButton {
  text?: string;
  action?: string;
  link?: string;
  tourId?: string;
}

/** A PostHog survey step's question (`ProductTourSurveyQuestion`). */
interface PostHogQuestion {
  type?: string;
  questionText?: string;
  display?: string;
  scale?: number;
  lowerBoundLabel?: string;
  upperBoundLabel?: string;
  submitButtonText?: string;
  backButtonText?: string;
}

/** One step of a PostHog tour (`ProductTourStep`): the fields the conversion reads. */
interface PostHogStep {
  id?: string;
  type?: string;
  selector?: string;
  useManualSelector?: boolean;
  elementTargeting?: string;
  inferenceData?: { autoData?: string; text?: string | null };
  progressionTrigger?: string;
  content?: unknown;
  contentHtml?: string;
  survey?: PostHogQuestion;
  buttons?: { primary?: PostHogButton; secondary?: PostHogButton };
  bannerConfig?: { behavior?: string; selector?: string; action?: { type?: string; link?: string; tourId?: string } };
  translations?: Record<
    string,
    {
      content?: unknown;
      contentHtml?: string;
      buttons?: { primary?: { text?: string }; secondary?: { text?: string } };
      survey?: PostHogQuestion;
    }
  >;
}

/** A tour's conditions (`ProductTourConditions`). */
interface PostHogConditions {
  url?: string;
  urlMatchType?: string;
  selector?: string;
  autoShowDelaySeconds?: number;
  events?: { values?: Array<{ name?: string }> } | null;
  cancelEvents?: { values?: Array<{ name?: string }> } | null;
  actions?: { values?: Array<{ name?: string; id?: number }> } | null;
  linkedFlagVariant?: string;
  deviceTypes?: string[];
  seenTourWaitPeriod?: { days?: number; types?: string[] };
}

/** One tour, in the SDK's shape; `postHogToursIn` brings the management API's shape to it. */
export interface PostHogTour {
  id: string;
  name: string;
  description?: string;
  tour_type: string;
  auto_launch?: boolean;
  start_date?: string | null;
  end_date?: string | null;
  conditions?: PostHogConditions;
  appearance?: Record<string, unknown>;
  steps: PostHogStep[];
  linked_flag_key?: string;
  display_frequency?: string;
  /** Management API only. */
  archived?: boolean;
  /** Management API only: a tour never launched has no start_date. */
  managed?: boolean;
  targeting_flag_filters?: unknown;
}

const EXPECTED =
  'expected PostHog\'s product tours: the API\'s list ({ "results": [ … ] }), an array of tours, or one tour (an object with steps)';

/**
 * The tours in `input`: the management API's list (`{ results }`), the SDK's (`{ product_tours }`), an array of tours,
 * or one tour; each in the SDK's shape (`tour_type`, `steps`, `conditions`, …) or the management API's (`content`).
 * Throws an Error saying what was expected when it is none of them.
 */
export function postHogToursIn(input: unknown): PostHogTour[] {
  const many = isRecord(input)
    ? Array.isArray(input.results)
      ? input.results
      : Array.isArray(input.product_tours)
        ? input.product_tours
        : undefined
    : Array.isArray(input)
      ? input
      : undefined;
  const list: unknown[] = many ?? [input];
  if (list.length === 0) throw new Error(`no tours: ${EXPECTED}`);
  return list.map((tour, index) => {
    const where = many ? `tour ${index}: ` : '';
    if (!isRecord(tour)) throw new Error(`${where}not an object: ${EXPECTED}`);
    const content = isRecord(tour.content) ? tour.content : undefined;
    const steps = Array.isArray(tour.steps) ? tour.steps : Array.isArray(content?.steps) ? content.steps : undefined;
    if (!steps || (typeof tour.id !== 'string' && typeof tour.id !== 'number') || typeof tour.name !== 'string')
      throw new Error(`${where}no ${steps ? 'id or name' : 'steps'}: ${EXPECTED}`);
    const first = isRecord(steps[0]) ? steps[0] : undefined;
    const declared = typeof tour.tour_type === 'string' ? tour.tour_type : undefined;
    // As PostHog's API infers it for the SDK: an announcement whose step is a banner is a banner.
    const contentType = typeof content?.type === 'string' ? content.type : 'tour';
    const tourType = declared ?? (contentType === 'announcement' && first?.type === 'banner' ? 'banner' : contentType);
    const linked =
      isRecord(tour.linked_flag) && typeof tour.linked_flag.key === 'string' ? tour.linked_flag.key : undefined;
    return {
      ...(tour as Partial<PostHogTour>),
      id: String(tour.id),
      name: tour.name,
      tour_type: tourType,
      steps: steps.filter(isRecord),
      conditions: isRecord(tour.conditions) ? tour.conditions : isRecord(content?.conditions) ? content.conditions : {},
      appearance: isRecord(tour.appearance)
        ? tour.appearance
        : isRecord(content?.appearance)
          ? content.appearance
          : undefined,
      display_frequency:
        typeof tour.display_frequency === 'string'
          ? tour.display_frequency
          : typeof content?.displayFrequency === 'string'
            ? content.displayFrequency
            : undefined,
      linked_flag_key: typeof tour.linked_flag_key === 'string' ? tour.linked_flag_key : linked,
      managed: content !== undefined && !Array.isArray(tour.steps),
    };
  });
}

/** A comment to write above the key at `segments`; a TODO or a dropped item is also printed, with its line. */
interface Remark {
  segments: PathSegment[];
  comment: string;
  /** Printed as a problem (the file needs a hand). */
  todo?: string;
  /** Printed as a warning (something was dropped; the file is right). */
  warning?: string;
}

/** What the conversion of one tour builds before it is text. */
interface Draft {
  file: string;
  slug: string;
  header: string;
  value: Record<string, unknown>;
  remarks: Remark[];
}

/** Converts every tour of PostHog's answer; file names are the slugs (from the tours' names), made unique. */
export function convertPostHogTours(input: unknown): ConvertedFlow[] {
  const tours = postHogToursIn(input);
  const taken = new Set<string>();
  const slugOf = (base: string) => {
    let slug = base;
    for (let n = 2; taken.has(slug.toLowerCase()); n++) slug = `${base}-${n}`;
    taken.add(slug.toLowerCase());
    return slug;
  };
  const slugs = new Map(
    tours.map((tour) => [tour.id, slugOf(slugFrom(tour.name) || `posthog-tour-${slugFrom(tour.id)}`)]),
  );
  // A tour another tour's button (or banner) starts opens on a click of that button's link.
  const triggered = new Set<string>();
  for (const tour of tours)
    for (const step of tour.steps) {
      const action = step.bannerConfig?.action;
      if (action?.type === 'trigger_tour' && action.tourId !== undefined) triggered.add(String(action.tourId));
      for (const button of [step.buttons?.primary, step.buttons?.secondary])
        if (button?.action === 'trigger_tour' && button.tourId !== undefined) triggered.add(String(button.tourId));
    }
  // Those PostHog showed only when started open here on a click of a link to #slug.
  const linked = new Set(
    tours
      .filter((tour) => tour.auto_launch === false || (triggered.has(tour.id) && tour.auto_launch !== true))
      .map((tour) => tour.id),
  );
  const drafts = tours.flatMap((tour) => convertTour(tour, { slugs, triggered, linked, slugOf }));
  return drafts.map(write);
}

interface Context {
  slugs: Map<string, string>;
  triggered: Set<string>;
  /** The tours that open on a click of a link to their slug. */
  linked: Set<string>;
  slugOf: (base: string) => string;
}

const TYPES: Record<string, string> = { tour: 'TOUR', announcement: 'ANNOUNCEMENT', banner: 'BANNER' };
const DEVICE_NOTE = 'the service does not know the device';

/** One tour as its flow file, and a SURVEY flow file per survey step. */
function convertTour(tour: PostHogTour, context: Context): Draft[] {
  const slug = context.slugs.get(tour.id)!;
  const remarks: Remark[] = [];
  const note = (segments: PathSegment[], comment: string) => remarks.push({ segments, comment });
  const todo = (segments: PathSegment[], comment: string, message = comment) =>
    remarks.push({ segments, comment: `TODO: ${comment}`, todo: message });
  const type = TYPES[tour.tour_type] ?? 'TOUR';
  const conditions = tour.conditions ?? {};

  // Who: PostHog's targeting flag filters (management API), its linked flag, device types, wait period.
  let targetingLogic = '';
  const whoTodos: string[] = [];
  const filters = postHogFiltersToCel(tour.targeting_flag_filters);
  if ('cel' in filters) targetingLogic = filters.cel;
  else
    whoTodos.push(
      `PostHog's targeting has no CEL form here (${filters.problem}), so nobody gets this flow until it is rewritten.\n  PostHog: ${JSON.stringify(tour.targeting_flag_filters)}`,
    );
  if (tour.linked_flag_key) {
    const variant =
      conditions.linkedFlagVariant && conditions.linkedFlagVariant !== 'any'
        ? `, variant ${JSON.stringify(conditions.linkedFlagVariant)}`
        : '';
    whoTodos.push(
      `PostHog showed this tour only to users with the feature flag ${JSON.stringify(tour.linked_flag_key)}${variant}, which targeting cannot read, so nobody gets this flow until it is rewritten:\n  send the flag's value as a user property and test it here (such as user.properties['flag'] == 'on').`,
    );
  } else if (conditions.linkedFlagVariant) {
    whoTodos.push(
      `PostHog's linkedFlagVariant ${JSON.stringify(conditions.linkedFlagVariant)} names a variant of a feature flag, which targeting cannot read: send it as a user property and test it here.`,
    );
  }
  if (whoTodos.length && (tour.linked_flag_key || !('cel' in filters))) targetingLogic = 'false';
  if (conditions.deviceTypes?.length)
    whoTodos.push(
      `PostHog showed this tour only on ${conditions.deviceTypes.join(', ')} devices; ${DEVICE_NOTE}, so it shows on every device: send the device as a user property and test it here, or hide it with CSS.`,
    );
  if (conditions.seenTourWaitPeriod?.days)
    whoTodos.push(
      `PostHog waited ${conditions.seenTourWaitPeriod.days} days after any ${(conditions.seenTourWaitPeriod.types ?? []).join(' or ')} seen before showing this one: put the flows in a collection with coolOff: ${conditions.seenTourWaitPeriod.days}d (collections.yaml).`,
    );

  // When: the schedule.
  const schedule: Record<string, string> = {};
  const whenTodos: string[] = [];
  for (const [key, value] of [
    ['start', tour.start_date],
    ['end', tour.end_date],
  ] as const) {
    if (typeof value !== 'string' || !value) continue;
    const iso = isoDateTime(value);
    if (iso) schedule[key] = iso;
    else
      whenTodos.push(
        `PostHog's ${key === 'start' ? 'start_date' : 'end_date'} ${JSON.stringify(value)} is not a date: write it as 2026-12-01T09:00:00Z.`,
      );
  }

  // The moment: page, click, delay.
  const startWhen: Record<string, unknown> = {};
  const momentTodos: string[] = [];
  const momentNotes: string[] = [];
  if (conditions.url) {
    const page = pageRule(conditions.url, conditions.urlMatchType ?? 'icontains');
    if ('page' in page) {
      startWhen.page = page.page;
      if (page.note) momentNotes.push(page.note);
    } else momentTodos.push(page.problem);
  }
  const clicks: string[] = [];
  if (conditions.selector) {
    const problem = selectorProblem(conditions.selector);
    if (problem)
      momentTodos.push(
        `PostHog's trigger selector is not one the page rules read (${problem}): PostHog opened this tour on a click of ${JSON.stringify(conditions.selector)}.`,
      );
    else {
      clicks.push(conditions.selector);
      if (tour.auto_launch === true)
        momentNotes.push('PostHog also showed this tour by itself; here the click on its trigger opens it.');
    }
  }
  if (context.linked.has(tour.id)) {
    clicks.push(`a[href='#${slug}']`);
    momentNotes.push(
      `PostHog showed this tour only when started (${context.triggered.has(tour.id) ? "another tour's button, " : ''}showProductTour in the page's code): here a click on a link to #${slug} starts it, as does Onboarding.getFlow('${slug}').start().`,
    );
  }
  if (clicks.length) startWhen.click = clicks.join(', ');
  if (typeof conditions.autoShowDelaySeconds === 'number' && conditions.autoShowDelaySeconds > 0)
    startWhen.delay = delay(conditions.autoShowDelaySeconds);
  for (const key of ['events', 'cancelEvents', 'actions'] as const) {
    const values = conditions[key]?.values;
    if (!values?.length) continue;
    const names = values.map((value) => JSON.stringify(value.name ?? value)).join(', ');
    const what =
      key === 'cancelEvents'
        ? `PostHog cancelled a waiting start of this tour on the event ${names}`
        : `PostHog showed this tour after the ${key === 'events' ? 'event' : 'action'} ${names} in the session`;
    momentTodos.push(
      `${what}; the start rules have no event. Track it and test it in targetingLogic (user.eventCount('name', duration('1h')) > 0), or start the flow from the page's code.`,
    );
  }

  // Whether it comes back.
  let reshow: Record<string, unknown> | undefined;
  if (tour.display_frequency === 'always' && type !== 'BANNER') {
    reshow = { after: '1m', times: 1000 };
    note(
      ['reshow'],
      `PostHog's display_frequency "always": a dismissed tour comes back a minute later, a thousand times; a completed one does not.`,
    );
  } else if (tour.display_frequency && !['show_once', 'until_interacted', 'always'].includes(tour.display_frequency))
    todo(
      ['data'],
      `PostHog's display_frequency ${JSON.stringify(tour.display_frequency)} is not one this converter knows (show_once, until_interacted, always).`,
    );

  // The steps; survey steps become flows of their own.
  const steps: Array<Record<string, unknown>> = [];
  const surveys: Draft[] = [];
  const translations: Record<string, { steps: Record<string, Record<string, unknown>> }> = {};
  const ids = new Set<string>();
  let previous: string | undefined;
  const stepRemarks: Array<{ index: number; key: string; remark: Omit<Remark, 'segments'> }> = [];
  for (const [position, step] of tour.steps.entries()) {
    let id =
      typeof step.id === 'string' && /^[^\u0000-\u001f]{1,256}$/.test(step.id) ? step.id : `step-${position + 1}`;
    for (let n = 2; ids.has(id); n++) id = `${step.id ?? 'step'}-${n}`;
    ids.add(id);
    if (step.type === 'survey' || step.survey) {
      const survey = surveyFlow(
        tour,
        step,
        id,
        position,
        previous,
        { slug, startWhen, schedule, targetingLogic },
        context,
      );
      surveys.push(survey);
      stepRemarks.push({
        index: steps.length,
        key: 'id',
        remark: {
          comment: `PostHog's step ${position + 1} (${id}) here was a survey: it is the SURVEY flow ${survey.slug} (${survey.file}), which opens ${previous ? `once step ${previous} is done` : 'with this tour'}.`,
        },
      });
      continue;
    }
    const out: Record<string, unknown> = { id };
    const index = steps.length;
    const at = (key: string, remark: Omit<Remark, 'segments'>) => stepRemarks.push({ index, key, remark });
    const content = stepContent(step);
    if (content.title) out.title = content.title;
    if (content.text) out.subtitle = content.text;
    if (content.image) {
      out.imageUri = content.image.uri;
      if (content.image.alt) out.imageAlt = content.image.alt;
    }
    if (content.video) out.videoUri = content.video;
    listContent(content, (key, remark) => at(key, remark), out);
    if (type === 'TOUR' && (step.type === 'element' || step.selector || step.inferenceData)) {
      const target = selectorOf(step);
      if ('selector' in target) {
        out.selector = target.selector;
        if (target.note) at('selector', { comment: target.note });
        if (step.progressionTrigger === 'click') out.advanceOn = 'click';
      } else at('id', { comment: `TODO: ${target.problem}`, todo: target.problem });
    } else if (step.type === 'banner' && type !== 'BANNER') {
      at('id', { comment: `PostHog's banner step is drawn here as a step of the ${type.toLowerCase()}.` });
    }
    for (const which of ['primary', 'secondary'] as const) {
      const button = step.buttons?.[which];
      if (!button) continue;
      const converted = buttonOf(button, context, tour.id);
      if (converted.button) out[`${which}Button`] = converted.button;
      if (converted.note) at(converted.button ? `${which}Button` : 'id', { comment: converted.note });
      if (converted.todo)
        at(converted.button ? `${which}Button` : 'id', { comment: `TODO: ${converted.todo}`, todo: converted.todo });
    }
    if (
      type === 'BANNER' &&
      step.bannerConfig?.action &&
      step.bannerConfig.action.type !== 'none' &&
      !out.primaryButton
    ) {
      const action = step.bannerConfig.action;
      const converted = buttonOf(
        {
          text: action.type === 'trigger_tour' ? 'Take the tour' : 'Learn more',
          action: action.type,
          link: action.link,
          tourId: action.tourId,
        },
        context,
        tour.id,
      );
      if (converted.button) {
        out.primaryButton = converted.button;
        at('primaryButton', {
          comment: `PostHog made the whole banner a ${action.type === 'link' ? 'link' : 'button'}; here it is this button: give it your own title.${converted.note ? ` ${converted.note}` : ''}`,
        });
      }
      if (converted.todo)
        at(converted.button ? 'primaryButton' : 'id', { comment: `TODO: ${converted.todo}`, todo: converted.todo });
    }
    // Translations of this step.
    for (const [code, translation] of Object.entries(step.translations ?? {})) {
      if (!isRecord(translation)) continue;
      const locale = localeCode(code);
      if (!locale) {
        at('id', {
          comment: `TODO: PostHog's translation "${code}" is not a locale code (fr, fr-CA, pt-BR): it is left out.`,
          todo: `translation "${code}" is not a locale code; left out`,
        });
        continue;
      }
      const text: Record<string, unknown> = {};
      if (translation.contentHtml !== undefined || translation.content !== undefined) {
        const translated = stepContent(translation);
        if (translated.title) text.title = translated.title;
        if (translated.text) text.subtitle = translated.text;
        if (translated.image?.alt) text.imageAlt = translated.image.alt;
        if (translated.dropped.length || translated.lost.length)
          at('id', {
            comment: `Dropped from PostHog's ${locale} text: ${[...translated.dropped, ...translated.lost].join(', ')}.`,
            warning: `dropped from PostHog's ${locale} text: ${[...translated.dropped, ...translated.lost].join(', ')}`,
          });
      }
      for (const which of ['primary', 'secondary'] as const) {
        const title = translation.buttons?.[which]?.text;
        if (title && out[`${which}Button`]) text[`${which}Button`] = { title };
      }
      if (Object.keys(text).length) (translations[locale] ??= { steps: {} }).steps[id] = text;
    }
    steps.push(out);
    previous = id;
  }

  const props: Record<string, unknown> = {};
  const appearance = tour.appearance ?? {};
  if (type === 'TOUR' && appearance.showOverlay !== false) {
    if (steps.some((step) => step.selector)) props.spotlight = true;
    else props.overlay = true;
  }
  if (type === 'BANNER' && tour.display_frequency === 'always') props.dismissible = false;
  const theme = themeNote(appearance);

  const status = tour.archived ? 'ARCHIVED' : tour.managed && !tour.start_date ? 'DRAFT' : 'ACTIVE';
  const value: Record<string, unknown> = {
    slug,
    name: tour.name,
    type,
    status,
    ...(targetingLogic ? { targetingLogic } : {}),
    ...(reshow ? { reshow } : {}),
    ...(Object.keys(schedule).length ? { schedule } : {}),
    ...(Object.keys(startWhen).length ? { startWhen } : {}),
    data: { ...(Object.keys(props).length ? { props } : {}), steps },
    ...(Object.keys(translations).length ? { translations } : {}),
  };
  const whoKey = targetingLogic ? 'targetingLogic' : 'status';
  for (const text of whoTodos) todo([whoKey], text);
  for (const text of whenTodos) todo([Object.keys(schedule).length ? 'schedule' : 'status'], text);
  const momentKey = Object.keys(startWhen).length ? 'startWhen' : 'data';
  for (const text of momentTodos) todo([momentKey], text);
  for (const text of momentNotes) note(['startWhen'], text);
  if (theme) note(['data'], theme);
  if (type === 'BANNER') {
    const config = tour.steps.find((step) => step.bannerConfig)?.bannerConfig;
    const where =
      config?.behavior === 'custom' && config.selector
        ? `inside ${config.selector}, where PostHog put it`
        : `at the top of the page${config?.behavior === 'static' ? '' : ' (placement="top" keeps it there while scrolling, as PostHog\'s sticky banner)'}`;
    note(['type'], `A banner shows where the page puts <onboarding-banner flow="${slug}">: put it ${where}.`);
  }
  for (const { index, key, remark } of stepRemarks)
    remarks.push({ segments: index < steps.length ? ['data', 'steps', index, key] : ['data', 'steps'], ...remark });
  if (!steps.length) {
    // Nothing but survey steps: the surveys are the tour.
    return surveys;
  }
  const header = ` From PostHog: product tour ${JSON.stringify(tour.name)} (${tour.id}), ${/^[aeiou]/.test(tour.tour_type) ? 'an' : 'a'} ${tour.tour_type}${type === TYPES[tour.tour_type] ? '' : ` written as a ${type}`}.${tour.description ? `\n ${tour.description.replace(/\s+/g, ' ').trim()}` : ''}`;
  return [{ file: `${slug}.yaml`, slug, header, value, remarks }, ...surveys];
}

/** A survey step as a SURVEY flow: it opens once the tour's step before it is done (with the tour when it is first). */
function surveyFlow(
  tour: PostHogTour,
  step: PostHogStep,
  id: string,
  position: number,
  previous: string | undefined,
  parent: {
    slug: string;
    startWhen: Record<string, unknown>;
    schedule: Record<string, string>;
    targetingLogic: string;
  },
  context: Context,
): Draft {
  const slug = context.slugOf(`${parent.slug}-survey`);
  const remarks: Remark[] = [];
  const question = step.survey ?? {};
  const out: Record<string, unknown> = { id };
  const content = stepContent(step);
  out.title = question.questionText || content.title || tour.name;
  if (content.text) out.subtitle = content.text;
  listContent(content, (key, remark) => remarks.push({ segments: ['data', 'steps', 0, key], ...remark }), out);
  const nps = question.type === 'rating' && question.display === 'number' && question.scale === 10;
  if (question.type === 'rating') {
    out.type = nps ? 'nps' : 'rating';
    if (!nps) out.props = { max: question.scale === 3 ? 3 : 5 };
  } else out.type = 'text';
  if (nps && (question.lowerBoundLabel || question.upperBoundLabel))
    out.props = {
      ...(question.lowerBoundLabel ? { lowLabel: question.lowerBoundLabel } : {}),
      ...(question.upperBoundLabel ? { highLabel: question.upperBoundLabel } : {}),
    };
  else if (question.lowerBoundLabel || question.upperBoundLabel)
    remarks.push({
      segments: ['data', 'steps', 0, 'type'],
      comment: `PostHog's labels of the scale ends (${[question.lowerBoundLabel, question.upperBoundLabel].filter(Boolean).join(' / ')}) are left out: a rating step shows stars without labels.`,
    });
  if (question.type === 'rating' && question.display === 'emoji')
    remarks.push({
      segments: ['data', 'steps', 0, 'type'],
      comment: `PostHog drew this scale as ${question.scale ?? 5} faces; a rating step draws stars.`,
    });
  if (question.submitButtonText) out.primaryButton = { title: question.submitButtonText };
  const translations: Record<string, unknown> = {};
  for (const [code, translation] of Object.entries(step.translations ?? {})) {
    const locale = localeCode(code);
    const survey =
      isRecord(translation) && isRecord(translation.survey) ? (translation.survey as PostHogQuestion) : undefined;
    if (!locale || !survey) continue;
    const text: Record<string, unknown> = {};
    if (survey.questionText) text.title = survey.questionText;
    if (nps && (survey.lowerBoundLabel || survey.upperBoundLabel))
      text.props = {
        ...(survey.lowerBoundLabel ? { lowLabel: survey.lowerBoundLabel } : {}),
        ...(survey.upperBoundLabel ? { highLabel: survey.upperBoundLabel } : {}),
      };
    if (survey.submitButtonText && out.primaryButton) text.primaryButton = { title: survey.submitButtonText };
    if (Object.keys(text).length) translations[locale] = { steps: { [id]: text } };
  }
  const after = previous
    ? `flows[${celString(parent.slug)}].steps[${celString(previous)}].status == 'COMPLETED_STEP'`
    : parent.targetingLogic;
  const targetingLogic =
    previous && parent.targetingLogic && parent.targetingLogic !== 'false'
      ? `${after} && (${parent.targetingLogic})`
      : parent.targetingLogic === 'false'
        ? 'false'
        : after;
  const value: Record<string, unknown> = {
    slug,
    name: `${tour.name} - Step ${position + 1} Survey`,
    type: 'SURVEY',
    status: tour.archived ? 'ARCHIVED' : tour.managed && !tour.start_date ? 'DRAFT' : 'ACTIVE',
    ...(targetingLogic ? { targetingLogic } : {}),
    ...(Object.keys(parent.schedule).length ? { schedule: parent.schedule } : {}),
    ...(!previous && Object.keys(parent.startWhen).length ? { startWhen: parent.startWhen } : {}),
    data: { steps: [out] },
    ...(Object.keys(translations).length ? { translations } : {}),
  };
  if (parent.targetingLogic === 'false')
    remarks.push({
      segments: ['targetingLogic'],
      comment: `TODO: as the tour ${parent.slug}, nobody gets this survey until its targeting is rewritten.`,
      todo: `as the tour ${parent.slug}, nobody gets this survey until its targeting is rewritten`,
    });
  const header = ` From PostHog: the survey step ${id} (step ${position + 1}) of product tour ${JSON.stringify(tour.name)} (${tour.id}),\n written as a flow of its own beside the tour's, ${parent.slug}.yaml.${previous ? ` It opens once the tour's step ${previous} is done.` : ''}`;
  return { file: `${slug}.yaml`, slug, header, value, remarks };
}

/** A step's content: its HTML, else its editor JSON. */
function stepContent(step: Pick<PostHogStep, 'contentHtml' | 'content'>): StepContent {
  if (typeof step.contentHtml === 'string') return postHogContent(step.contentHtml);
  if (step.content) return postHogContent(tipTapToHtml(step.content));
  return { dropped: [], lost: [] };
}

/** Lists what the content lost (a TODO) and dropped (a warning) above the step's text. */
function listContent(
  content: StepContent,
  at: (key: string, remark: Omit<Remark, 'segments'>) => void,
  step: Record<string, unknown>,
): void {
  const key = step.subtitle !== undefined ? 'subtitle' : step.title !== undefined ? 'title' : 'id';
  if (content.dropped.length)
    at(key, {
      comment: `Dropped from PostHog's HTML, its text kept: ${content.dropped.join(', ')}.`,
      warning: `dropped from PostHog's HTML, its text kept: ${content.dropped.join(', ')}`,
    });
  if (content.lost.length)
    at(key, {
      comment: `TODO: dropped from PostHog's HTML, with what it showed: ${content.lost.join(', ')}.\n  Flow text has no place for it (a step shows one image or video: imageUri, videoUri).`,
      todo: `dropped from PostHog's HTML, with what it showed: ${content.lost.join(', ')}`,
    });
}

/** The selector of an element step: its manual selector, else the first plain CSS selector PostHog's inference holds. */
function selectorOf(step: PostHogStep): { selector: string; note?: string } | { problem: string } {
  if (step.selector && !selectorProblem(step.selector))
    return step.useManualSelector === false || step.elementTargeting === 'auto'
      ? {
          selector: step.selector,
          note: 'PostHog found this element by inference; this is the selector it kept beside it.',
        }
      : { selector: step.selector };
  if (step.selector)
    return {
      problem: `PostHog's selector ${JSON.stringify(step.selector)} is not a CSS selector (${selectorProblem(step.selector)}): the step is centred until it has one.`,
    };
  const groups = (() => {
    try {
      const data = JSON.parse(step.inferenceData?.autoData ?? '') as {
        notextGroups?: Array<{ cssSelectors?: Array<{ css?: string; offset?: number }> }>;
      };
      return data.notextGroups ?? [];
    } catch {
      return [];
    }
  })();
  for (const group of groups)
    for (const candidate of group.cssSelectors ?? [])
      if (candidate.offset === 0 && candidate.css && !selectorProblem(candidate.css))
        return {
          selector: candidate.css,
          note: 'PostHog found this element by inference; this is the first selector it tried: check it names the element.',
        };
  return {
    problem:
      'PostHog found this element by inference (by its text), which a selector cannot say: the step is centred until it has a selector.',
  };
}

/** A PostHog button as ours, with what to say about it. */
function buttonOf(
  button: PostHogButton,
  context: Context,
  tourId: string,
): { button?: Record<string, unknown>; note?: string; todo?: string } {
  const title = button.text?.trim() || 'OK';
  switch (button.action) {
    case 'next_step':
      return { button: { title, action: 'flow.forward' } };
    case 'previous_step':
      return { button: { title, action: 'flow.back' } };
    case 'dismiss':
      return { button: { title, action: 'flow.skip' } };
    case 'link': {
      const link = button.link?.trim() ?? '';
      const problem = link ? linkProblem(link) : 'it has no link';
      if (problem) return { todo: `PostHog's link button ${JSON.stringify(title)} is left out: ${problem}.` };
      return { button: { title, action: 'flow.complete', uri: link, target: '_blank' } };
    }
    case 'trigger_tour': {
      const id = String(button.tourId ?? '');
      const target = context.slugs.get(id);
      if (id === tourId) return { button: { title, action: 'flow.restart' } };
      if (target && context.linked.has(id))
        return {
          button: { title, action: 'flow.complete', uri: `#${target}` },
          note: `PostHog started the tour ${target} here: this link to #${target} starts that flow (its startWhen.click).`,
        };
      if (target)
        return {
          button: { title, action: 'flow.complete' },
          note: `PostHog started the tour ${target} here; that flow shows by itself once eligible, as it auto-launched in PostHog.`,
        };
      return {
        button: { title, action: 'flow.complete' },
        todo: `PostHog started the tour ${JSON.stringify(button.tourId ?? '')} here, which is not among the tours converted: convert it too, or give this button the link of a flow that starts on its click.`,
      };
    }
    default:
      return {
        todo: `PostHog's button ${JSON.stringify(title)} does ${JSON.stringify(button.action ?? '')}, which this converter does not know: it is left out.`,
      };
  }
}

/**
 * `conditions.url` with its match type as page patterns, where a pattern can say it: PostHog tests the whole address
 * (`location.href`); a pattern tests the path. An address with a host is read as its path, an `icontains` as a path
 * that starts with it. A query, a fragment, a regular expression or a bare word cannot be said.
 */
function pageRule(url: string, matchType: string): { page: string | string[]; note?: string } | { problem: string } {
  const what = `PostHog showed this tour where the address ${matchType === 'exact' ? 'is' : matchType === 'is_not' ? 'is not' : matchType.startsWith('not_') ? 'does not match' : 'matches'} ${JSON.stringify(url)} (${matchType})`;
  const cannot = (why: string) => ({
    problem: `${what}; ${why}, and targeting cannot read the page, so it opens on every page until rewritten (startWhen.page takes path patterns such as /reports/*).`,
  });
  if (matchType === 'regex' || matchType === 'not_regex') return cannot('a page pattern is no regular expression');
  let path: string;
  let host = false;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^[^/\s]+\.[^/\s]+\//.test(url)) {
    try {
      const parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `https://${url}`);
      if (parsed.search || parsed.hash) return cannot('a page pattern has no query or fragment');
      path = parsed.pathname;
      host = true;
    } catch {
      return cannot('it is not an address');
    }
  } else if (url.startsWith('/')) {
    if (/[?#]/.test(url)) return cannot('a page pattern has no query or fragment');
    path = url;
  } else return cannot('a page pattern is a path');
  path = path.replace(/\/+$/, '') || '/';
  if (/[*]|\/:/.test(path) || pagePatternProblem(path)) return cannot('its path is not one a page pattern can hold');
  const hostNote = host ? ' The host is not part of a page rule.' : '';
  const negate = matchType === 'is_not' || matchType === 'not_icontains';
  if (matchType === 'exact' || matchType === 'is_not')
    return { page: negate ? `!${path}` : path, ...(hostNote ? { note: hostNote.trim() } : {}) };
  if (matchType === 'icontains' || matchType === 'not_icontains') {
    const patterns = path === '/' ? ['/', '/*'] : [path, `${path}*`];
    return {
      page: negate ? patterns.map((pattern) => `!${pattern}`) : patterns,
      note: `PostHog matched ${JSON.stringify(url)} anywhere in the address, in any case; here the path starts with ${path}.${hostNote}`,
    };
  }
  return cannot(`${matchType} is not a match type this converter knows`);
}

/**
 * PostHog's targeting flag filters (`{ groups: [{ properties: [{ key, value, operator, type }] }] }`, person properties)
 * as CEL: groups are alternatives, a group's properties all hold. Empty or absent: no targeting.
 */
export function postHogFiltersToCel(filters: unknown): { cel: string } | { problem: string } {
  if (filters === undefined || filters === null) return { cel: '' };
  if (!isRecord(filters) || !Array.isArray(filters.groups)) return { problem: 'not a list of groups' };
  const groups: string[] = [];
  for (const group of filters.groups) {
    if (!isRecord(group)) return { problem: 'a group is not an object' };
    if (typeof group.rollout_percentage === 'number' && group.rollout_percentage < 100)
      return { problem: `a rollout of ${group.rollout_percentage}%` };
    const parts: string[] = [];
    for (const property of Array.isArray(group.properties) ? group.properties : []) {
      const part = propertyToCel(property);
      if (typeof part !== 'string') return part;
      parts.push(part);
    }
    if (!parts.length) return { cel: '' };
    groups.push(filters.groups.length === 1 ? parts.join(' && ') : `(${parts.join(' && ')})`);
  }
  return { cel: groups.join(' || ') };
}

/** One person-property filter as CEL, or why it has none. */
function propertyToCel(property: unknown): string | { problem: string } {
  if (!isRecord(property) || typeof property.key !== 'string') return { problem: 'a filter without a key' };
  if (property.type !== undefined && property.type !== 'person')
    return {
      problem: `a filter on ${JSON.stringify(property.type)} ${JSON.stringify(property.key)}, not a person property`,
    };
  const map = 'user.properties';
  const key = celString(property.key);
  const present = `${key} in ${map}`;
  const value = `${map}[${key}]`;
  const operator = typeof property.operator === 'string' ? property.operator : 'exact';
  const values = (Array.isArray(property.value) ? property.value : [property.value]).filter(
    (item): item is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof item),
  );
  const literal = (item: string | number | boolean) => (typeof item === 'string' ? celString(item) : String(item));
  const first = values[0];
  switch (operator) {
    case 'is_set':
      return present;
    case 'is_not_set':
      return `!(${present})`;
    case 'exact':
    case 'is_not': {
      if (!values.length) break;
      const test =
        values.length === 1 ? `${value} == ${literal(first)}` : `${value} in [${values.map(literal).join(', ')}]`;
      return operator === 'exact' ? `${present} && ${test}` : `!(${present} && ${test})`;
    }
    case 'icontains':
    case 'not_icontains': {
      if (typeof first !== 'string') break;
      const test = `string(${value}).lowerAscii().contains(${celString(first.toLowerCase())})`;
      return operator === 'icontains' ? `${present} && ${test}` : `!(${present} && ${test})`;
    }
    case 'regex':
    case 'not_regex': {
      if (typeof first !== 'string') break;
      const test = `string(${value}).matches(${celString(first)})`;
      return operator === 'regex' ? `${present} && ${test}` : `!(${present} && ${test})`;
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const number = Number(first);
      if (first === undefined || first === '' || !Number.isFinite(number)) break;
      const sign = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[operator];
      return `${present} && double(${value}) ${sign} ${Number.isInteger(number) ? `${number}.0` : number}`;
    }
  }
  return { problem: `the operator ${JSON.stringify(operator)} on ${JSON.stringify(property.key)}` };
}

/** A CEL string literal. */
function celString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

/** PostHog's appearance as the page's theme properties, in a comment (a flow file has no colours). */
function themeNote(appearance: Record<string, unknown>): string | undefined {
  const tokens: Record<string, string> = {
    backgroundColor: '--onboarding-surface',
    textColor: '--onboarding-text',
    buttonColor: '--onboarding-accent',
    borderColor: '--onboarding-border',
    borderRadius: '--onboarding-radius',
    fontFamily: '--onboarding-font',
    boxShadow: '--onboarding-shadow',
  };
  const lines = Object.entries(tokens)
    .filter(([key]) => typeof appearance[key] === 'string' || typeof appearance[key] === 'number')
    .map(
      ([key, token]) =>
        `${token}: ${typeof appearance[key] === 'number' ? `${appearance[key]}px` : String(appearance[key])};`,
    );
  if (!lines.length) return undefined;
  return `PostHog's appearance is the page's theme here (CSS on the elements, such as onboarding-tour):\n  ${lines.join('\n  ')}`;
}

/** Seconds as a start-rule delay: `3s`, or `1500ms`. */
function delay(seconds: number): string {
  return Number.isInteger(seconds) ? `${seconds}s` : `${Math.round(seconds * 1000)}ms`;
}

/** PostHog's date (ISO 8601, its offset or `Z`, or a bare date read as UTC) as a date-time with `Z`. */
function isoDateTime(text: string): string | undefined {
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text.trim()) ? `${text.trim()}T00:00:00Z` : text.trim());
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString().replace('.000Z', 'Z');
  return dateTimeProblem(iso) ? undefined : iso;
}

/** A locale code as flow files write it (`pt-BR`, `zh-Hans`), from PostHog's (`pt-br`, `pt_BR`); undefined when it is none. */
function localeCode(code: string): string | undefined {
  const [language, ...rest] = code.trim().split(/[-_]/);
  const parts = [language.toLowerCase()];
  for (const part of rest)
    parts.push(
      /^[A-Za-z]{4}$/.test(part) ? `${part[0].toUpperCase()}${part.slice(1).toLowerCase()}` : part.toUpperCase(),
    );
  const canonical = parts.join('-');
  return /^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$/.test(canonical) ? canonical : undefined;
}

/** A slug from a tour's name: lower case, words joined by "-". */
function slugFrom(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['\u2019]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
}

/** One draft as its file's text, its comments where they belong, and every problem and warning with its line. */
function write(draft: Draft): ConvertedFlow {
  const doc = new Document(draft.value);
  doc.commentBefore = draft.header;
  for (const { segments, comment } of draft.remarks) {
    const pair = pairAt(doc, segments);
    const text = comment
      .split('\n')
      .map((line) => ` ${line}`)
      .join('\n');
    // Above the "-" rather than on its line, for the first key of a list item.
    const parent = typeof segments.at(-2) === 'number' ? doc.getIn(segments.slice(0, -1), true) : undefined;
    const node = isMap(parent) && parent.items[0] === pair ? parent : isScalar(pair?.key) ? pair.key : undefined;
    if (node) node.commentBefore = node.commentBefore ? `${node.commentBefore}\n${text}` : text;
    else doc.commentBefore = `${doc.commentBefore ?? ''}\n${text}`;
  }
  const text = doc.toString({ lineWidth: 0 });
  const checked = checkFlowText(text);
  const at = (segments: PathSegment[]) => checked.locate(segments.slice(0, -1), String(segments.at(-1)));
  const problems: FlowProblem[] = [
    ...draft.remarks
      .filter((remark) => remark.todo)
      .map((remark) => ({ path: formatPath(remark.segments), ...at(remark.segments), message: oneLine(remark.todo!) })),
    ...checked.problems,
  ];
  const warnings: FlowProblem[] = [
    ...draft.remarks
      .filter((remark) => remark.warning)
      .map((remark) => ({
        path: formatPath(remark.segments),
        ...at(remark.segments),
        message: oneLine(remark.warning!),
      })),
    ...checked.warnings,
  ];
  const order = (a: FlowProblem, b: FlowProblem) => a.line - b.line || a.column - b.column;
  return { file: draft.file, slug: draft.slug, text, problems: problems.sort(order), warnings: warnings.sort(order) };
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ');

/** The pair of `segments` in `doc`: its last segment a key of the map the others lead to. */
function pairAt(doc: Document, segments: readonly PathSegment[]): Pair | undefined {
  const parent = segments.length === 1 ? doc.contents : doc.getIn(segments.slice(0, -1), true);
  if (!isMap(parent)) return undefined;
  return parent.items.find((item) => isScalar(item.key) && item.key.value === segments.at(-1));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
