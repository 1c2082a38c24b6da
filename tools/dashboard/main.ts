// The dashboard's entry (dist/dashboard/dashboard.js): registers its elements; index.html puts <ob-dashboard> on the page.
import { ObAnswers } from './answers-table.js';
import { ObDashboard } from './app.js';
import { ObCollections } from './collections-list.js';
import { ObExperimentView } from './experiment-view.js';
import { ObExperimentsList } from './experiments-list.js';
import { ObFlowView } from './flow-view.js';
import { ObFlowsList } from './flows-list.js';
import { ObPeopleView } from './people-view.js';
import { ObSignIn } from './sign-in.js';
import { ObSurveyPanel } from './survey-panel.js';

const elements: Array<[string, CustomElementConstructor]> = [
  ['ob-dashboard', ObDashboard],
  ['ob-sign-in', ObSignIn],
  ['ob-flows-list', ObFlowsList],
  ['ob-collections', ObCollections],
  ['ob-flow-view', ObFlowView],
  ['ob-experiments-list', ObExperimentsList],
  ['ob-experiment-view', ObExperimentView],
  ['ob-people-view', ObPeopleView],
  ['ob-survey-panel', ObSurveyPanel],
  ['ob-answers', ObAnswers],
];
for (const [name, element] of elements) if (!customElements.get(name)) customElements.define(name, element);
