import * as z from 'zod/mini';
import { ExternalId } from '#shared/api/fields.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { orderView } from '#shared/orders/order.ts';
import { OrderSchema } from '#shared/orders/order-schemas.ts';
import { getOrder } from '#shared/orders/order-store.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'getOrder',
  description: 'The canonical order with `processing_state`, `state_reason` (why it was rejected or cancelled), `next_contact_at` and `correlation_id`.',
  params: z.object({ externalOrderId: ExternalId }),
  responses: { 200: { description: 'The order', schema: OrderSchema } },
});

export const handler = readHandler(contract, async ({ principal, params }) => ({
  status: 200,
  body: orderView(await getOrder(principal.tenant, params.externalOrderId)),
}));
