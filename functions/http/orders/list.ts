import { defineOperation } from '#shared/http/operation.ts';
import { listQuery, pageOf } from '#shared/http/page-query.ts';
import { OrderSummarySchema, orderListFilters } from '#shared/orders/order-schemas.ts';
import { listOrders } from '#shared/orders/order-store.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'listOrders',
  description:
    'Orders in order of `external_order_id`. Filtered by `processing_state` and/or `updated_since`, in order of last change instead (`updated_at`, oldest first, then `external_order_id`): such a page reads only the orders it returns, whatever the size of your order book, and a sync by `updated_since` reads only what changed. An order that changes while you page moves to the end of a filtered list, so it is seen again, never missed.',
  query: listQuery(orderListFilters),
  responses: { 200: { description: 'A page of orders', schema: pageOf(OrderSummarySchema) } },
});

export const handler = readHandler(contract, async ({ principal, query }) => {
  const { limit, cursor, ...filters } = query;
  return { status: 200, body: await listOrders(principal.tenant, filters, { limit, cursor }) };
});
