/**
 * The auth suite's validation figure, in a process of its own: a batch of 500 products with
 * `argv[2]` variants each, parsed and validated as the batch handler does, against JSON.parse
 * of the same bytes; prints `{ value, floor, bytes }` (µs per batch, medians).
 */
import { ProductBatchEnvelope, parseProductInput } from '#shared/catalog/product-schemas.ts';
import { pairedMicrosPerCall } from '../lib/measure.ts';
import { productBatch } from '../lib/product-batch.ts';

const variants = Number(process.argv[2]);
const raw = Buffer.from(JSON.stringify(productBatch(500, variants)));
const { value, floor } = await pairedMicrosPerCall(
  () => {
    const envelope = ProductBatchEnvelope.parse(JSON.parse(raw.toString('utf8')));
    for (const p of envelope.products) parseProductInput(p);
  },
  () => JSON.parse(raw.toString('utf8')),
  // Small batches are timed ten at a time, so one garbage collection does not decide a sample.
  { samples: 31, batch: variants > 10 ? 1 : 10 },
);
process.stdout.write(`${JSON.stringify({ value, floor, bytes: raw.length })}\n`);
