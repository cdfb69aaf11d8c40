import { ProductSummarySchema, productListFilters } from '#shared/catalog/product-schemas.ts';
import { listProducts } from '#shared/catalog/product-store.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { listQuery, pageOf } from '#shared/http/page-query.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'listProducts',
  description:
    'Products in order of `external_product_id`, with search and filters. Archived products are left out unless `include_archived=true`. `status` and `availability` cost nothing to filter by (each value is an index partition). `q` and `category` are searched within at most 1,000 entries per page, so on a large catalog a page may hold fewer than `limit` products, even none, and still have a `next_cursor`: follow it until it is null. A cursor continues only the list it came from (same filters).',
  query: listQuery(productListFilters),
  responses: { 200: { description: 'A page of products', schema: pageOf(ProductSummarySchema) } },
});

export const handler = readHandler(contract, async ({ principal, query }) => {
  const { limit, cursor, ...filters } = query;
  return { status: 200, body: await listProducts(principal.tenant, filters, { limit, cursor }) };
});
