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
