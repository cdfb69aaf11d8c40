import { defineOperation } from '#shared/http/operation.ts';
import { httpHandler } from '../handler.ts';
import { OrderListQuery, OrderSummarySchema } from '#shared/orders/order-schemas.ts';
import { listOrders } from '#shared/orders/order-store.ts';
import { PageQuery, pageOf } from '#shared/http/page-query.ts';

export const contract = defineOperation({
  operationId: 'listOrders',
  description: 'Orders in order of `external_order_id`, optionally filtered by `processing_state` and `updated_since`.',
  query: OrderListQuery.extend(PageQuery.shape),
  responses: { 200: { description: 'A page of orders', schema: pageOf(OrderSummarySchema) } },
});

export const handler = httpHandler(contract, async ({ principal, query }) => {
  const { limit, cursor, ...filters } = query;
  return { status: 200, body: await listOrders(principal.tenant, filters, { limit, cursor }) };
});
