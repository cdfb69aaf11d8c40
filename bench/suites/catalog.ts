/**
 * `catalog`: the server-side time and write units of a 500 × 100 product batch,
 * against the floor of as many raw conditional PutItem calls of the same items at the same
 * concurrency, on DynamoDB Local. The upsert reads its products' stored versions first (5
 * BatchGetItem calls) and puts each new version; the read units are reported beside the write
 * units, and so is what the same batch sent again unchanged costs. Beside it, with no target:
 * the same against as many raw versioned UpdateItem calls (the write that keeps `created_at`
 * without reading it, the alternative to the read-then-put layout), which DynamoDB Local runs
 * about a third slower than PutItem.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { itemSize } from '#local/metering/billing.ts';
import { withCapacityScope } from '#local/metering/capacity-meter.ts';
import type { withPipelineHeld } from '#local/pipeline-hold.ts';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { ProductInputSchema } from '#shared/catalog/product-schemas.ts';
import { BATCH_WRITE_CONCURRENCY, upsertProductBatch } from '#shared/catalog/product-store.ts';
import { productAttributes } from '#shared/catalog/products.ts';
import { batchGet } from '#shared/storage/batch.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { versionedWrite } from '#shared/storage/versioned-write.ts';
import { streamDueAttributes } from '#shared/stream/stream-work.ts';
import { versionAttributes } from '#shared/versioning/version-attributes.ts';
import { type Figure, figure } from '../lib/figures.ts';
import { median, progress } from '../lib/measure.ts';
import { productBatch } from '../lib/product-batch.ts';

const ROUNDS = 4;
/**
 * Rounds run and thrown away first. DynamoDB Local's JVM compiles each request path as it
 * gets used: the upsert's UpdateItem path kept getting faster for four rounds (1,350, 1,306,
 * 918, 768, 690 ms in one run) while the floor's PutItem path settled after one; measuring
 * from round 1 measured the emulator's warm-up, which AWS does not have.
 */
const WARM_UP_ROUNDS = 3;

/** The very items the upsert stores (list index entry and stream-work due entry included), built before the clock starts. */
function floorItems(tenant: string, batch: ReturnType<typeof productBatch>['products'], now: Date) {
  return batch.map((p) => {
    const key = keys.product(tenant, p.external_product_id);
    return {
      key,
      attributes: { ...productAttributes(tenant, ProductInputSchema.parse(p), now), ...streamDueAttributes(key.pk, now) },
      version: versionAttributes(p.source_version, p),
    };
  });
}

type Phase = <T>(work: () => Promise<T>) => Promise<{ result: T; capacity: { writeUnits: number; readUnits: number }; elapsed: number }>;
type PhaseName = 'upsert' | 'floor' | 'updateFloor';

const roundBatch = (round: number) => productBatch(500, 100).products.map((p) => ({ ...p, external_product_id: `r${round}-${p.external_product_id}` }));
type Batch = ReturnType<typeof roundBatch>;

/** One round's three phases on the same fresh batch: the upsert, the PutItem floor and the UpdateItem one (items built before the clock starts). */
function roundPhases(batch: Batch, phase: Phase): Record<PhaseName, () => ReturnType<Phase>> {
  const now = new Date();
  const createdAt = now.toISOString();
  const items = floorItems('bench-floor', batch, now);
  const updateItems = floorItems('bench-update-floor', batch, now);
  return {
    upsert: () => phase(() => upsertProductBatch('bench-catalog', batch, now)),
    floor: () =>
      phase(() =>
        mapWithConcurrency(items, BATCH_WRITE_CONCURRENCY, ({ key, attributes, version }) =>
          tableClient().send(
            new PutCommand({
              TableName: tableName(),
              Item: { ...key, ...attributes, ...version, created_at: createdAt },
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          ),
        ),
      ),
    updateFloor: () =>
      phase(() =>
        mapWithConcurrency(updateItems, BATCH_WRITE_CONCURRENCY, ({ key, attributes, version }) =>
          versionedWrite(key, attributes, version, { createdAt, remove: ['archived_at'] }),
        ),
      ),
  };
}

/**
 * One round, its phases taking turns at going first: DynamoDB Local's table grows by each
 * phase's 50,000 variant index entries, and its JVM warms up, so whichever ran first in every
 * round would pay more.
 */
async function measureRound(round: number, batch: Batch, phase: Phase) {
  const phases = roundPhases(batch, phase);
  const order = (['upsert', 'floor', 'updateFloor'] as const).map((_, i, all) => all[(i + round) % all.length]!);
  const elapsed = {} as Record<PhaseName, number>;
  const units = {} as Record<PhaseName, number>;
  let upsertReadUnits = 0;
  // What the upsert's read of its stored versions is billed, taken before the upsert writes them.
  const billedReadUnits = await billedVersionReads(batch);
  for (const name of order) {
    const measured = await phases[name]();
    elapsed[name] = measured.elapsed;
    units[name] = measured.capacity.writeUnits;
    if (name === 'upsert') upsertReadUnits = measured.capacity.readUnits;
    if (name === 'upsert' && (measured.result as Awaited<ReturnType<typeof upsertProductBatch>>).some((r) => r.outcome !== 'upserted')) {
      throw new Error('the benchmark batch was not fully upserted');
    }
  }
  progress(
    `  upsert ${elapsed.upsert.toFixed(0)} ms, floor ${elapsed.floor.toFixed(0)} ms, UpdateItem floor ${elapsed.updateFloor.toFixed(0)} ms (${order.join(', ')})`,
  );
  return { elapsed, units, upsertReadUnits, billedReadUnits };
}

/**
 * What DynamoDB bills for reading the batch's products strongly consistently: each item's whole
 * size rounded up to 4 KB (the attributes read do not matter), and 1 unit for one not found.
 * DynamoDB Local reports nothing for a key it does not find.
 */
async function billedVersionReads(batch: readonly { external_product_id: string }[]) {
  const stored = await batchGet<Record<string, unknown>>(batch.map((p) => keys.product('bench-catalog', p.external_product_id)));
  const sizes = stored.map((item) => Math.ceil(itemSize(marshall(item, { removeUndefinedValues: true })) / 4096));
  return sizes.reduce((sum, units) => sum + units, 0) + (batch.length - stored.length);
}

/** The last round's batch sent again unchanged, as a full catalog sync sends most of its products: what it costs. */
async function measureResend(batch: Batch, phase: Phase) {
  const measured = await phase(() => upsertProductBatch('bench-catalog', batch, new Date()));
  if (measured.result.some((r) => r.outcome !== 'unchanged')) throw new Error('the batch sent again was not answered unchanged');
  const billedReadUnits = await billedVersionReads(batch);
  progress(
    `  the same batch again: ${measured.elapsed.toFixed(0)} ms, ${measured.capacity.writeUnits} WCU, ${billedReadUnits} RCU billed (${measured.capacity.readUnits} reported)`,
  );
  return { elapsed: measured.elapsed, writeUnits: measured.capacity.writeUnits, readUnits: measured.capacity.readUnits, billedReadUnits };
}

function catalogFigures(
  times: Record<PhaseName, number[]>,
  units: Record<PhaseName, number>,
  reads: { reported: number; billed: number },
  resend: Awaited<ReturnType<typeof measureResend>>,
): Figure[] {
  return [
    figure({
      suite: 'catalog',
      name: 'POST /products/batch 500 × 100, server-side time',
      value: median(times.upsert),
      unit: 'ms',
      floor: {
        value: median(times.floor),
        label: `500 raw conditional PutItem of the same items (list and stream-work index entries included), ${BATCH_WRITE_CONCURRENCY} in flight`,
      },
      target: { ratio: 1.3, direction: 'at_most' },
      note: `median of ${ROUNDS} rounds after ${WARM_UP_ROUNDS} warm-up rounds, DynamoDB Local in memory, each phase with the local pipeline held`,
    }),
    figure({
      suite: 'catalog',
      name: 'POST /products/batch 500 × 100, server-side time against raw versioned UpdateItem',
      value: median(times.upsert),
      unit: 'ms',
      floor: {
        value: median(times.updateFloor),
        label: `500 raw versioned UpdateItem of the same attributes (created_at kept, as the upsert writes), ${BATCH_WRITE_CONCURRENCY} in flight`,
      },
      note: 'no target: beside the PutItem floor it shows how much of the gap is DynamoDB Local running UpdateItem slower than PutItem',
    }),
    figure({
      suite: 'catalog',
      name: 'POST /products/batch 500 × 100, write units',
      value: units.upsert,
      unit: 'WCU',
      floor: { value: units.floor, label: '500 raw conditional PutItem of the same items (list and stream-work index entries included)' },
      note: 'ReturnConsumedCapacity TOTAL; includes the list index entry and the stream-work due entry of each product',
    }),
    figure({
      suite: 'catalog',
      name: 'POST /products/batch 500 × 100, read units billed',
      value: reads.billed,
      unit: 'RCU',
      note: `the stored versions read first, strongly consistent, 100 products a BatchGetItem: 1 RCU for each new product (DynamoDB Local reports ${reads.reported}); a read unit costs a fifth of a write unit`,
    }),
    figure({
      suite: 'catalog',
      name: 'POST /products/batch 500 × 100 sent again unchanged, write units',
      value: resend.writeUnits,
      unit: 'WCU',
      floor: { value: units.upsert, label: 'the same batch written' },
      note: `a full catalog sync's common case: no product written, ${resend.billedReadUnits} RCU billed for the stored versions (each product of 100 variants read whole, rounded up to 12 KB; DynamoDB Local reports ${resend.readUnits}), ${resend.elapsed.toFixed(0)} ms server-side (one run, after the measured rounds)`,
    }),
  ];
}

/**
 * `settled` waits until the pipeline is idle between phases: the catalog indexer writes the
 * previous batch's variant index in the background (100 entries per product), and would
 * otherwise slow whichever phase runs next. Each measured phase runs with the pipeline `held`:
 * the indexer's work for the batch being measured started inside the window whenever the stream
 * poller happened to read the batch's records early (3.15 s against 1.20 s in two runs of one
 * code). On AWS that work runs in functions of its own, against a table that scales with it.
 */
export async function run(_baseUrl: string, settled: () => Promise<number>, held: typeof withPipelineHeld): Promise<Figure[]> {
  /** One measured phase: once the pipeline has settled, `work` timed and metered with it held. */
  const phase: Phase = async (work) => {
    await settled();
    return held(async () => {
      const start = performance.now();
      const { result, capacity } = await withCapacityScope(work);
      return { result, capacity, elapsed: performance.now() - start };
    });
  };
  const times: Record<PhaseName, number[]> = { upsert: [], floor: [], updateFloor: [] };
  let units = { upsert: 0, floor: 0, updateFloor: 0 };
  let reads = { reported: 0, billed: 0 };
  let batch: Batch = [];
  for (let round = 0; round < WARM_UP_ROUNDS + ROUNDS; round++) {
    const warmUp = round < WARM_UP_ROUNDS;
    progress(`catalog round ${round + 1}/${WARM_UP_ROUNDS + ROUNDS}${warmUp ? ' (warm-up)' : ''}`);
    batch = roundBatch(round);
    const measured = await measureRound(round, batch, phase);
    if (warmUp) continue;
    for (const name of Object.keys(times) as PhaseName[]) times[name].push(measured.elapsed[name]);
    units = measured.units;
    reads = { reported: measured.upsertReadUnits, billed: measured.billedReadUnits };
  }
  const resend = await measureResend(batch, phase);
  return catalogFigures(times, units, reads, resend);
}
