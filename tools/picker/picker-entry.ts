// Entry of dist/onboarding-picker.js, which the live preview's bookmarklet carries: starts the picker, or stops it.
import { togglePicker } from './picker.js';

togglePicker();
