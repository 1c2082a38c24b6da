// Svelte entry: register the elements, start the SDK, mount.
import { mount } from 'svelte';
import { onboarding, registerElements } from 'open-onboarding';
import SetupPanel from './SetupPanel.svelte';

registerElements();
onboarding.init(window.ONBOARDING_CONFIG); // { publicKey, apiUrl }
mount(SetupPanel, { target: document.getElementById('root') });
