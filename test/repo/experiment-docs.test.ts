// docs/protocol.md's assignment stays true: its JavaScript and its worked example agree with the script's function.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { assignVariant, bucketOf, rangeEnds } from '../../src/api/experiment-assignment.js';
import type { ExperimentsFile } from '../../src/api/wire.js';

const doc = readFileSync('docs/protocol.md', 'utf8');
const assignment = doc.split(/^### /m).find((part) => part.startsWith('Assignment\n')) ?? '';
const { experiments } = parse(readFileSync('demo/flows/experiments.yaml', 'utf8')) as ExperimentsFile;
const [welcomeCopy] = experiments;
type Assign = (experimentId: string, userId: string, variants: Array<{ id: string; weight: number }>) => string;

describe("docs/protocol.md's assignment", () => {
  it('gives JavaScript that assigns as the script does, and the worked example as written', async () => {
    const code = /```js\n([\s\S]*?)```/.exec(assignment)?.[1];
    expect(code).toBeDefined();
    expect(code!.trim().split('\n').length).toBeLessThanOrEqual(11);
    const dir = mkdtempSync(join(tmpdir(), 'onboarding-assign-'));
    try {
      writeFileSync(join(dir, 'assign.mjs'), `${code}\nexport { assign };\n`);
      const { assign } = (await import(pathToFileURL(join(dir, 'assign.mjs')).href)) as { assign: Assign };
      for (const userId of ['ada', 'alan', 'guest_warm-6', 'guest_short-3', 'guest_control-3', 'grace'])
        expect(assign(welcomeCopy.id, userId, welcomeCopy.variants), userId).toBe(
          await assignVariant(welcomeCopy, userId),
        );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // The worked example's figures, from the digest.
    const digest = createHash('sha256').update('welcome-copy.ada', 'utf8').digest();
    expect(assignment).toContain(`\`${digest.toString('hex')}\``);
    expect(assignment).toContain(
      `\`0x${digest.subarray(0, 4).toString('hex')}\` = ${digest.readUInt32BE(0).toLocaleString('en')}`,
    );
    expect(bucketOf(digest)).toBe(9305);
    expect(rangeEnds(welcomeCopy.variants)).toEqual([3400, 6700, 10_000]);
    expect(await assignVariant(welcomeCopy, 'ada')).toBe('short');
    expect(await assignVariant(welcomeCopy, 'alan')).toBe('control');
    expect(rangeEnds([1, 1, 1].map((weight, index) => ({ id: String(index), weight })))).toEqual([3333, 6666, 10_000]);
  });
});
