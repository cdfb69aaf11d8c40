import { BatchResultSchema, ProductBatchEnvelope, ProductBatchSchema } from '#shared/catalog/product-schemas.ts';
import { upsertProductBatch } from '#shared/catalog/product-store.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'upsertProductsBatch',
  description:
    'Upserts up to 500 products (up to 100 variants each, body up to 2 MiB). Each product is validated and written on its own, in one conditional write: ' +
    'a product with a newer `source_version` is `upserted`, the stored version with identical content is `unchanged`, and an invalid or stale product is `rejected` ' +
    'with `errors[]` (pointers into this body) without failing the rest. 501 products or more give 413 `payload_too_large`.',
  body: ProductBatchSchema,
  bodyEnvelope: ProductBatchEnvelope,
  responses: { 200: { description: 'Outcome per product, in request order', schema: BatchResultSchema } },
  problems: ['payload_too_large'],
});

export const handler = mutationHandler(contract, async ({ principal, body, now }) => {
  const results = await upsertProductBatch(principal.tenant, body.products, now);
  const rejected = results.filter((r) => r.outcome === 'rejected').length;
  return { status: 200, body: { accepted: results.length - rejected, rejected, results } };
});
