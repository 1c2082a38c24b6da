// A page as an app using @frigade/react writes it: the Provider pointed at another service, one Collection in the layout.
import { createRoot } from 'react-dom/client';
import * as Frigade from '@frigade/react';

const { apiKey, apiUrl, userId, userProperties, collectionId } = window.FRIGADE_REACT_CONFIG;

createRoot(document.getElementById('root')).render(
  <Frigade.Provider apiKey={apiKey} apiUrl={apiUrl} userId={userId} userProperties={userProperties}>
    <main>
      <h1>Reports</h1>
      <Frigade.Collection collectionId={collectionId} />
    </main>
  </Frigade.Provider>,
);
