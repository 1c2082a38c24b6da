// Engines suite setup: makes sure the project's browser is there (installing it where the machine allows).
import type { TestProject } from 'vitest/node';
import { ensureEngine } from './engines.js';

export default function setup(project: TestProject): void {
  ensureEngine(project.getProvidedContext().engine ?? 'chromium');
}
