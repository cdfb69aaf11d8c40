import * as z from 'zod/mini';
import { ExternalId } from '#shared/api/fields.ts';
import { ProductSchema } from '#shared/catalog/product-schemas.ts';
import { archiveProduct } from '#shared/catalog/product-store.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'archiveProduct',
  description:
    'Archives the product (a tombstone, never a hard delete) and returns it. Active orders using its variants are requalified. ' +
    'A later upsert with a newer `source_version` revives it. Archiving an archived product returns it unchanged.',
  params: z.object({ externalProductId: ExternalId }),
  responses: { 200: { description: 'The archived product', schema: ProductSchema } },
});

export const handler = mutationHandler(contract, async ({ principal, params, now }) => ({
  status: 200,
  body: await archiveProduct(principal.tenant, params.externalProductId, now),
}));
