// Fixture for core tests in happy-dom: a fresh copy of the SDK (its own stores) talking to a real service on loopback.
import { vi } from 'vitest';
import type { OnboardingConfig } from '../../src/core/config.js';

export type Sdk = Awaited<ReturnType<typeof loadSdk>>;

const running: Array<{ destroy(): void }> = [];

/** Imports the core and its stores afresh, as a page load would, and initialises it against `apiUrl`. */
export async function loadSdk(apiUrl: string, publicKey: string, config: Partial<OnboardingConfig> = {}) {
  vi.resetModules();
  const { Onboarding } = await import('../../src/core/onboarding.js');
  const stores = await import('../../src/stores/flows.js');
  const report = await import('../../src/core/errors.js');
  const sdk = new Onboarding();
  running.push(sdk);
  const events: Array<{ name: string; slug?: string; step?: string }> = [];
  const errors: Array<{ code: string; status?: number }> = [];
  for (const name of [
    'flow.start',
    'flow.complete',
    'flow.skip',
    'flow.restart',
    'step.start',
    'step.complete',
    'step.skip',
    'step.reset',
  ] as const) {
    sdk.on(name, (event) =>
      events.push({ name, slug: event.flow.slug, ...('step' in event ? { step: event.step.id } : {}) }),
    );
  }
  sdk.on('error', ({ code, error }) => errors.push({ code, status: (error as { status?: number }).status }));
  const ready = sdk.init({ publicKey, apiUrl, ...config });
  return { sdk, stores, report, events, errors, ready };
}

/** Stops every SDK copy a test made, so none keeps timers or a tab channel open. */
export function destroySdks(): void {
  for (const sdk of running.splice(0)) sdk.destroy();
}

export const blockedYaml = `
slug: gated
name: Gated
type: CHECKLIST
data:
  steps:
    - id: open
      title: Open
    - id: locked
      title: Locked
      startCriteria: "user.properties.unlocked == true"
`;

export const countRows = async (
  service: { db: { query<T>(sql: string, params?: unknown[]): Promise<T[]> } },
  sql: string,
  params: unknown[] = [],
) => Number((await service.db.query<{ n: string | number }>(sql, params))[0].n);
