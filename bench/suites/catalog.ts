/**
 * `catalog`: the server-side time and write units of a 500 × 100 product batch (issue 4),
 * against the floor of as many raw conditional PutItem calls of the same items at the same
 * concurrency, on DynamoDB Local.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { upsertProductBatch, BATCH_WRITE_CONCURRENCY } from '#shared/catalog/product-store.ts';
import { ProductInputSchema } from '#shared/catalog/product-schemas.ts';
import { productAttributes } from '#shared/catalog/products.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { versionAttributes } from '#shared/versioning/version-attributes.ts';
import { withCapacityScope } from '#shared/storage/capacity-meter.ts';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { figure, type Figure } from '../lib/figures.ts';
import { median, progress } from '../lib/measure.ts';
import { productBatch } from '../lib/product-batch.ts';

const ROUNDS = 3;

/**
 * `settled` waits until the pipeline is idle between phases: the catalog indexer writes the
 * previous batch's variant index in the background, and would otherwise slow whichever
 * phase runs next.
 */
export async function run(_baseUrl: string, settled: () => Promise<number>): Promise<Figure[]> {
  const times: number[] = [];
  const floors: number[] = [];
  let units = 0;
  let floorUnits = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    progress(`catalog round ${round}/${ROUNDS}${round === 0 ? ' (warm-up)' : ''}`);
    const batch = productBatch(500, 100).products.map((p) => ({ ...p, external_product_id: `r${round}-${p.external_product_id}` }));
    await settled();
    let start = performance.now();
    const now = new Date();
    const { result: results, capacity: batchCapacity } = await withCapacityScope(() => upsertProductBatch('bench-catalog', batch, now));
    const elapsed = performance.now() - start;
    if (results.some((r) => r.outcome !== 'upserted')) throw new Error('the benchmark batch was not fully upserted');
    const batchUnits = batchCapacity.writeUnits;

    // The very items the upsert stores (list index entry included), built before the clock starts.
    const items = batch.map((p) => ({
      ...keys.product('bench-floor', p.external_product_id),
      ...productAttributes('bench-floor', ProductInputSchema.parse(p), now),
      ...versionAttributes(p.source_version, p),
      created_at: now.toISOString(),
    }));
    await settled();
    start = performance.now();
    const { capacity: floorCapacity } = await withCapacityScope(() =>
      mapWithConcurrency(items, BATCH_WRITE_CONCURRENCY, (Item) =>
        tableClient().send(new PutCommand({ TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' })),
      ),
    );
    const floorElapsed = performance.now() - start;
    if (round === 0) continue;
    times.push(elapsed);
    floors.push(floorElapsed);
    units = batchUnits;
    floorUnits = floorCapacity.writeUnits;
  }
  return [
    figure({
      suite: 'catalog',
      name: 'POST /products/batch 500 × 100, server-side time',
      value: median(times),
      unit: 'ms',
      floor: { value: median(floors), label: `500 raw conditional PutItem of the same items (index entry included), ${BATCH_WRITE_CONCURRENCY} in flight` },
      target: { ratio: 1.3, direction: 'at_most' },
      note: `median of ${ROUNDS} rounds after a warm-up, DynamoDB Local in memory`,
    }),
    figure({
      suite: 'catalog',
      name: 'POST /products/batch 500 × 100, write units',
      value: units,
      unit: 'WCU',
      floor: { value: floorUnits, label: '500 raw conditional PutItem of the same items (index entry included)' },
      note: 'ReturnConsumedCapacity TOTAL; includes the list index entry of each product',
    }),
  ];
}
