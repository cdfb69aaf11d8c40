/**
 * `scale`: the same list requests and reaction walks on tenants of 1,000, 10,000 and 50,000
 * products, orders and deliveries (seeded straight into an in-memory DynamoDB Local of the
 * suite's own, bench/scale/). Figures: each request's p99 latency and read units per item it
 * returns at 50,000, against the same at 1,000 (the floor): the target is at most 1.2×, a
 * page whose cost does not grow with the tenant. Read units per page, and the p50, are in
 * each figure's note and in the charts.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Figure, figure } from '../lib/figures.ts';
import type { Measured } from '../scale/measure.ts';

const TARGET = { ratio: 1.2, direction: 'at_most' as const };
/** Below this, a difference is the machine's noise (a timer tick, one 0.5-unit read), not growth. */
const NOISE = { ms: 5, unitsPerItem: 0.5 / 50 };
const perItem = (m: Measured) => m.read_units / Math.max(1, m.returned);

export async function run(): Promise<{ figures: Figure[]; series: Record<string, number[]> }> {
  const worker = fileURLToPath(new URL('../scale/worker.ts', import.meta.url));
  const output = execFileSync(process.execPath, ['--disable-warning=ExperimentalWarning', worker], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 * 1024 * 1024,
  });
  const measured = JSON.parse(output.trim().split('\n').at(-1)!) as Measured[];
  const sizes = [...new Set(measured.map((m) => m.size))].sort((a, b) => a - b);
  const smallest = sizes[0]!;
  const largest = sizes.at(-1)!;
  const figures: Figure[] = [];
  const series: Record<string, number[]> = {};
  for (const request of [...new Set(measured.map((m) => m.request))]) {
    const at = (size: number) => measured.find((m) => m.request === request && m.size === size)!;
    const small = at(smallest);
    const large = at(largest);
    const note = `${sizes.map((s) => `${s.toLocaleString('en')}: p50 ${at(s).p50_ms.toFixed(1)} ms, p99 ${at(s).p99_ms.toFixed(1)} ms, ${at(s).read_units} RCU, ${at(s).returned} returned`).join('; ')}`;
    figures.push(
      figure({
        suite: 'scale',
        name: `${request}: p99 at ${largest.toLocaleString('en')} items`,
        value: large.p99_ms,
        unit: 'ms',
        floor: { value: Math.max(small.p99_ms, NOISE.ms), label: `p99 at ${smallest.toLocaleString('en')} items` },
        target: TARGET,
        note,
      }),
      // Per item returned: on the small tenant some filters match fewer items than a page holds
      // (3 discontinued inactive products exist at all), so its page is cheaper for being short.
      figure({
        suite: 'scale',
        name: `${request}: read units per item returned at ${largest.toLocaleString('en')} items`,
        value: perItem(large),
        unit: 'RCU',
        floor: { value: Math.max(perItem(small), NOISE.unitsPerItem), label: `the same at ${smallest.toLocaleString('en')} items` },
        target: TARGET,
      }),
    );
    series[`growth p99 ms: ${request}`] = sizes.map((s) => at(s).p99_ms);
    series[`growth RCU: ${request}`] = sizes.map((s) => at(s).read_units);
  }
  series['growth sizes'] = sizes;
  return { figures, series };
}
