// Browser suite setup: makes sure Chromium is there, installing it where the machine allows.
import { ensureChromium } from './chromium.js';

export default function setup(): void {
  ensureChromium();
}
