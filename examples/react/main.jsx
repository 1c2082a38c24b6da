// React entry: register the elements, start the SDK, render.
import { createRoot } from 'react-dom/client';
import { onboarding, registerElements } from 'open-onboarding';
import { SetupPanel } from './SetupPanel.jsx';

registerElements();
onboarding.init(window.ONBOARDING_CONFIG); // { publicKey, apiUrl }
createRoot(document.getElementById('root')).render(<SetupPanel />);
