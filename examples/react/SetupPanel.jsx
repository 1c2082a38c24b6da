// React: the <onboarding-checklist> element, and the $flows store through useSyncExternalStore (no wrapper needed).
import { useSyncExternalStore } from 'react';
import { $flows } from 'open-onboarding';

/** Every eligible flow by slug; re-renders when any changes. */
export function useFlows() {
  return useSyncExternalStore(
    (onChange) => $flows.listen(onChange),
    () => $flows.get(),
  );
}

export function SetupPanel() {
  const setup = useFlows()['setup-guide'];
  return (
    <section>
      <h2 id="progress">Setup {setup ? `${Math.round(setup.progress * 100)}%` : ''}</h2>
      {/* React 19 passes attributes and properties to custom elements as they are. */}
      <onboarding-checklist flow="setup-guide" />
      {setup?.currentStep && (
        <button id="next" onClick={() => setup.forward()}>
          Done: {setup.currentStep.title}
        </button>
      )}
    </section>
  );
}
