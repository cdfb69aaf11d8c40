import * as z from 'zod/mini';
import { ExternalId } from '#shared/api/fields.ts';
import { ProductSchema } from '#shared/catalog/product-schemas.ts';
import { getProduct } from '#shared/catalog/product-store.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'getProduct',
  description: 'A product with its variants; an archived product is returned with `status: archived` and `archived_at`.',
  params: z.object({ externalProductId: ExternalId }),
  responses: { 200: { description: 'The product', schema: ProductSchema } },
});

export const handler = readHandler(contract, async ({ principal, params }) => ({
  status: 200,
  body: await getProduct(principal.tenant, params.externalProductId),
}));
