/**
 * The `scale` suite's measurement, in a process of its own with its own in-memory DynamoDB
 * Local (no pollers: nothing reacts to the seeded items), so its clients and configuration
 * never meet another suite's. Prints one JSON document: per tenant size, per list request,
 * latency percentiles and read units per page; and per reaction, the units of its whole walk.
 */
import { startTableAlone } from '#local/table-alone.ts';
import type { Measured } from './measure.ts';

export const SIZES: readonly number[] = process.env.SCALE_SIZES ? process.env.SCALE_SIZES.split(',').map(Number) : [1_000, 10_000, 50_000];
/**
 * Rounds per request. A p99 is the tail of its samples: of 200 it is the second-slowest, and
 * two sizes' p99s of one request, taken from 200-round blocks of one run, differed by
 * 0.80–1.32× where the p50s were flat. Of 1,000 (the tenth-slowest) the same blocks kept within
 * 0.94–1.10×, so one run's ratio measures growth, not the machine's hiccups.
 */
const SAMPLES = Number(process.env.SCALE_SAMPLES ?? 1_000);
const PAGE = 50;

const table = await startTableAlone();
try {
  // Loaded only now: the service's clients read the configuration above when first built, and are metered.
  (await import('#local/metering/capacity-meter.ts')).meterEveryTableClient();
  const { measureSizes } = await import('./measure.ts');
  const results: Measured[] = await measureSizes(SIZES, SAMPLES, PAGE);
  process.stdout.write(`${JSON.stringify(results)}\n`);
} finally {
  await table.stop();
}
