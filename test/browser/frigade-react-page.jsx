// A page as an app using @frigade/react writes it: the Provider pointed at another service, and the components a test mounts.
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import * as Frigade from '@frigade/react';

const { apiKey, apiUrl, userId, userProperties, mounted = [] } = window.FRIGADE_REACT_CONFIG;

const components = {
  Announcement: Frigade.Announcement,
  Banner: Frigade.Banner,
  'Checklist.Collapsible': Frigade.Checklist.Collapsible,
  Collection: Frigade.Collection,
  Form: Frigade.Form,
  'Survey.NPS': Frigade.Survey.NPS,
  Tour: Frigade.Tour,
};

/** The app's layout: what the config mounts, what `window.frigadeApp.mount` adds, and the elements a tour points at. */
function App() {
  const [parts, setParts] = useState(mounted);
  const { addProperties } = Frigade.useUser();
  const { frigade } = Frigade.useFrigade();

  // The test drives the app as its code would: mount a component, or add the user's properties with the SDK's hook;
  // `loaded` settles once the SDK holds the user's first state.
  useEffect(() => {
    window.frigadeApp = {
      mount: (component, props) => setParts((current) => [...current, { component, props }]),
      addProperties,
      loaded: () => frigade.getFlows().then(() => undefined),
    };
  });

  return (
    <main>
      <h1>Reports</h1>
      <nav>
        <button id="nav-reports" type="button">
          Reports
        </button>
        <button id="nav-settings" type="button">
          Settings
        </button>
      </nav>
      {parts.map(({ component, props }, index) => {
        const Component = components[component];
        return <Component key={index} {...props} />;
      })}
    </main>
  );
}

createRoot(document.getElementById('root')).render(
  <Frigade.Provider apiKey={apiKey} apiUrl={apiUrl} userId={userId} userProperties={userProperties}>
    <App />
  </Frigade.Provider>,
);
