// Flow files in Frigade's shapes: the SDK journeys' flows (Node and Chromium), and Frigade's NPS survey and a form with fields of its own.
export const FRIGADE_FLOWS: Record<string, string> = {
  'a-welcome.yaml': `
slug: welcome
name: Welcome
type: ANNOUNCEMENT
data:
  title: Welcome aboard
  subtitle: A quick look around
  props: { dismissible: true }
  steps:
    - id: hello
      title: Hello there
      subtitle: This is the first step
      primaryButton: { title: Next, action: step.complete }
    - id: goodbye
      title: See you around
`,
  'b-setup.yaml': `
slug: setup
name: Setup
type: CHECKLIST
data:
  title: Get set up
  steps:
    - id: connect
      title: Connect your data
    - id: invite
      title: Invite your team
    - id: launch
      title: Launch
`,
  'c-pro.yaml': `
slug: pro-tips
name: Pro tips
type: CARD
targetingLogic: "has(user.properties.plan) && user.properties.plan == 'pro'"
data:
  title: Tips for pro users
  steps:
    - id: tip
      title: Use shortcuts
`,
  'd-team.yaml': `
slug: team-banner
name: Team banner
type: BANNER
targetingLogic: "has(group.properties.tier) && group.properties.tier == 'gold'"
data:
  title: Gold team perks
  steps:
    - id: perk
      title: Priority support
`,
  'e-nudge.yaml': `
slug: upgrade-nudge
name: Upgrade nudge
type: CARD
targetingLogic: "'exported' in user.events"
data:
  title: Exports are better with Pro
  steps:
    - id: nudge
      title: Try Pro
`,
  // Two tips in one collection (collections.yaml below), for users with the `tips` property only.
  'g-tip-one.yaml': `
slug: tip-one
name: Tip one
type: CARD
targetingLogic: has(user.properties.tips)
data:
  steps:
    - id: one
      title: Keyboard shortcuts
`,
  'h-tip-two.yaml': `
slug: tip-two
name: Tip two
type: CARD
targetingLogic: has(user.properties.tips)
data:
  steps:
    - id: two
      title: Saved searches
`,
  // A banner, then a card, in one collection (react-tips below) that @frigade/react's <Frigade.Collection> draws.
  'i-react-banner.yaml': `
slug: react-banner
name: Saved views banner
type: BANNER
targetingLogic: has(user.properties.reactTips)
data:
  props: { dismissible: true }
  steps:
    - id: announce
      title: Saved views are here
      subtitle: Keep a filter set one click away
`,
  'j-react-card.yaml': `
slug: react-card
name: Invite card
type: CARD
targetingLogic: has(user.properties.reactTips)
data:
  props: { dismissible: true }
  steps:
    - id: invite
      title: Invite your team
      subtitle: Reports are better together
`,
  'k-draft.yaml': `
slug: unreleased
name: Unreleased
type: BANNER
status: DRAFT
data:
  steps:
    - id: only
      title: Not ready yet
`,
  'collections.yaml': `
collections:
  - id: tips
    type: CUSTOM
    coolOff: 1d
    allowedComponents: [Card]
    flows: [tip-one, tip-two]
  - id: react-tips
    type: CUSTOM
    coolOff: 1d
    allowedComponents: [Banner, Card]
    flows: [react-banner, react-card]
`,
};

/**
 * One flow for each of @frigade/react's components (the Chromium journeys), for users with the `reactComponents`
 * property only, so the other journeys' users never see them. Their shapes are Frigade's.
 */
export const FRIGADE_REACT_FLOWS: Record<string, string> = {
  'rc-banner.yaml': `
slug: rc-banner
name: Faster dashboards banner
type: BANNER
targetingLogic: has(user.properties.reactComponents)
data:
  props: { dismissible: true }
  steps:
    - id: news
      title: Dashboards load twice as fast
      subtitle: Nothing to do, it is on for everyone
`,
  'rc-checklist.yaml': `
slug: rc-checklist
name: Reports checklist
type: CHECKLIST
targetingLogic: has(user.properties.reactComponents)
data:
  title: Get started with Reports
  subtitle: Two steps to your first shared report
  steps:
    - id: connect
      title: Connect a data source
      subtitle: Reports read from it
      primaryButton: { title: Connect }
    - id: share
      title: Share a report
      subtitle: Your team sees what you see
      primaryButton: { title: Share }
`,
  'rc-form.yaml': `
slug: rc-form
name: About you
type: FORM
targetingLogic: has(user.properties.reactComponents)
data:
  steps:
    - id: about
      title: Tell us about yourself
      fields:
        - { id: name, type: text, label: Your name, required: true }
        - { id: goal, type: textarea, label: What brings you here, placeholder: A report you need }
      primaryButton: { title: Send }
`,
  'rc-announcement.yaml': `
slug: rc-announcement
name: New editor
type: ANNOUNCEMENT
targetingLogic: has(user.properties.reactComponents)
data:
  props: { dismissible: true }
  steps:
    - id: editor
      title: Meet the new editor
      subtitle: Charts and text side by side
      primaryButton: { title: Next }
    - id: reorder
      title: Drag to reorder
      subtitle: Move any block where it reads best
      primaryButton: { title: Got it }
`,
  'rc-tour.yaml': `
slug: rc-tour
name: Navigation tour
type: TOUR
targetingLogic: has(user.properties.reactComponents)
data:
  steps:
    - id: reports
      title: Your reports
      subtitle: Every report your team builds
      selector: "#nav-reports"
      primaryButton: { title: Next }
    - id: settings
      title: Your settings
      subtitle: Sources, members and billing
      selector: "#nav-settings"
      primaryButton: { title: Done }
`,
  // Frigade's NPS survey as Frigade writes it: type NPS_SURVEY, the score as a field of type nps, then a feedback field.
  'rc-nps.yaml': `
slug: rc-nps
name: NPS survey
type: NPS_SURVEY
targetingLogic: has(user.properties.reactComponents)
data:
  steps:
    - id: score
      title: How likely are you to recommend Reports to a friend?
      fields:
        - id: nps-score
          type: nps
          positiveLabel: Certainly
          negativeLabel: Not at all
    - id: feedback
      title: What is the main reason for your score?
      fields:
        - id: feedback
          type: textarea
          placeholder: Tell us more
      primaryButton: { title: Send }
`,
  // Eligible once the page adds the plan property, mid-session.
  'rc-pro-banner.yaml': `
slug: rc-pro-banner
name: Pro banner
type: BANNER
targetingLogic: "has(user.properties.reactComponents) && has(user.properties.plan) && user.properties.plan == 'pro'"
data:
  steps:
    - id: welcome
      title: Welcome to Pro
      subtitle: Scheduled reports are on
`,
};

/** Frigade's NPS survey as its docs write it: an `nps` field, then a comment field named by its step's title. */
export const FRIGADE_NPS_SURVEY = `slug: nps-survey
name: NPS survey
type: NPS_SURVEY
data:
  props:
    dismissible: true
    positiveLabel: Extremely likely
    negativeLabel: Not likely at all
  steps:
    - id: nps-score-page
      title: How likely are you to recommend us to a friend?
      fields:
        - id: nps-score
          type: nps
          positiveLabel: Extremely likely
          negativeLabel: Not likely at all
    - id: nps-feedback-page
      title: What's the main reason for your score?
      fields:
        - id: nps-feedback-text
          type: textarea
          placeholder: Your answer goes here
      primaryButton:
        title: Submit
`;

/** A Frigade form: validation rules with messages, a select of several choices, Frigade's step fields, and a `calendar` field the page draws. */
export const FRIGADE_FORM = `slug: waitlist
name: Waitlist
type: FORM
data:
  props: { dismissible: false }
  steps:
    - id: waitlist-page
      title: Join the waitlist
      stepName: Waitlist
      iconUri: /icons/list.svg
      backButtonTitle: Previous
      skippable: true
      dismissible: false
      autoMarkCompleted: true
      primaryButton: { title: Submit, action: step.complete, uri: /thanks, target: _self }
      fields:
        - id: name
          type: text
          label: Name
          required: Your name, please
          minLength: { value: 2, message: At least two letters }
        - id: email
          type: email
          label: Work email
          required: { value: true, message: We need your email }
          pattern: { value: '/^[^@]+@company\\.com$/', message: Use your company address }
        - id: start
          type: calendar
          label: Start date
          props: { earliest: "2026-01-01" }
        - id: plans
          type: select
          label: Plans
          multiple: true
          value: pro
          options: [{ value: pro, label: Pro }, { value: team, label: Team }]
`;
