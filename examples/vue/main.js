// Vue entry: register the elements, start the SDK, mount.
import { createApp } from 'vue';
import { onboarding, registerElements } from 'open-onboarding';
import SetupPanel from './SetupPanel.vue';

registerElements();
onboarding.init(window.ONBOARDING_CONFIG); // { publicKey, apiUrl }
createApp(SetupPanel).mount('#root');
