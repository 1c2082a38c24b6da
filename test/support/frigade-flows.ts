// Flow files for the Frigade SDK journeys (Node and Chromium): content to draw, targeting by property, group and event.
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
