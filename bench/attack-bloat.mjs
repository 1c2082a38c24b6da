// The attack that once crashed the service: one public key bloats one user with 300 transitions, then waves of concurrent reads of that user.
// Usage: node bench/attack-bloat.mjs [--transitions 300] [--waves 20,40,80]
// Prints the answer sizes and the service's RSS before and during the waves, and returns them for bench/run.mjs.
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { startServiceProcess, sampleRss, tempFlows } from './support.mjs';

const STEPS = ['one', 'two', 'three', 'four', 'five'];
const FLOW = `slug: bloat
name: Bloat
type: CHECKLIST
data:
  steps:
${STEPS.map((id) => `    - id: ${id}\n      title: ${id}\n`).join('')}`;

export async function runAttack({ transitions = 300, waves = [20, 40, 80] } = {}) {
  const flows = tempFlows({ 'bloat.yaml': FLOW });
  const service = await startServiceProcess({ flows: flows.dir });
  try {
    const userId = 'attack-victim';
    const post = (body) =>
      fetch(`${service.url}/v1/public/flowStates`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${service.publicKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const read = async () => {
      const started = performance.now();
      const response = await fetch(`${service.url}/v1/public/flowStates?userId=${userId}`, {
        headers: { Authorization: `Bearer ${service.publicKey}` },
      });
      const bytes = (await response.arrayBuffer()).byteLength;
      return { status: response.status, bytes, ms: performance.now() - started };
    };

    // The largest data the service takes: its limit, less the JSON around the padding.
    const limit = service.limits.dataBytes;
    const data = { blob: 'x'.repeat(limit - '{"blob":""}'.length) };
    const idleRss = await sampleRss(service.pid, 1000);
    const sizes = [];
    const statuses = new Map();
    const started = performance.now();
    for (let i = 0; i < transitions; i++) {
      // Start each step in turn with the largest data: every write moves the pointer, so each is applied and
      // recorded, the flow never finishes, and every step's latest response carries the full data.
      const response = await post({
        userId,
        flowSlug: 'bloat',
        stepId: STEPS[i % STEPS.length],
        actionType: 'STARTED_STEP',
        data,
      });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const bytes = (await response.arrayBuffer()).byteLength;
      if (i === 9 || i === transitions - 1) sizes.push({ after: i + 1, bytes });
    }
    const bloatSeconds = (performance.now() - started) / 1000;
    const beforeWaves = await sampleRss(service.pid, 1000);

    const results = [];
    for (const concurrency of waves) {
      const sampler = sampleRss(service.pid, 0, { untilStopped: true });
      const waveStart = performance.now();
      const answers = await Promise.all(Array.from({ length: concurrency }, read));
      const ms = performance.now() - waveStart;
      const peak = await sampler.stop();
      results.push({
        concurrency,
        ok: answers.filter((a) => a.status === 200).length,
        maxBytes: Math.max(...answers.map((a) => a.bytes)),
        slowestMs: Math.round(Math.max(...answers.map((a) => a.ms))),
        waveMs: Math.round(ms),
        peakRssMiB: peak.max,
      });
    }
    const peakRss = Math.max(...results.map((r) => r.peakRssMiB));
    return {
      transitions,
      transitionStatuses: Object.fromEntries(statuses),
      bloatSeconds: Number(bloatSeconds.toFixed(1)),
      dataBytes: limit,
      answerBytes: sizes,
      idleRssMiB: idleRss.mean,
      rssBeforeWavesMiB: beforeWaves.mean,
      waves: results,
      peakRssMiB: peakRss,
      rssGrowthMiB: Number((peakRss - beforeWaves.mean).toFixed(1)),
    };
  } finally {
    await service.stop();
    flows.remove();
  }
}

export function printAttack(result) {
  console.log(
    `Attack: ${result.transitions} transitions of ${result.dataBytes} B data on one user in ${result.bloatSeconds} s (${JSON.stringify(result.transitionStatuses)})`,
  );
  for (const size of result.answerBytes)
    console.log(`  state answer after ${String(size.after).padStart(3)} transitions: ${size.bytes} bytes`);
  console.log(`  RSS idle ${result.idleRssMiB} MiB, before the waves ${result.rssBeforeWavesMiB} MiB`);
  console.log('  concurrent reads | 200s | largest answer | slowest | wave | peak RSS');
  for (const wave of result.waves) {
    console.log(
      `  ${String(wave.concurrency).padStart(16)} | ${String(wave.ok).padStart(4)} | ${String(wave.maxBytes).padStart(12)} B | ${String(wave.slowestMs).padStart(4)} ms | ${String(wave.waveMs).padStart(4)} ms | ${wave.peakRssMiB} MiB`,
    );
  }
  console.log(`  RSS growth during the waves: ${result.rssGrowthMiB} MiB (target: under 100 MiB)`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { transitions: { type: 'string', default: '300' }, waves: { type: 'string', default: '20,40,80' } },
  });
  const result = await runAttack({
    transitions: Number(values.transitions),
    waves: values.waves.split(',').map(Number),
  });
  printAttack(result);
}
