import { commands } from '#functions/order-processing.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { OrderInputSchema, OrderWriteResultSchema } from '#shared/orders/order-schemas.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'createOrder',
  description:
    'Submits an order. A new `external_order_id` creates it in `received` (201); qualification and scheduling follow asynchronously, reported by ' +
    '`commerce.order.status_changed.v1`. For an existing id, a newer `source_version` updates it under the rules of PATCH (200, `updated`), the stored ' +
    'version with identical content answers it as it is (200, `unchanged`), an older one is 409 `stale_source_version`; `order_kind` and `external_customer_id` never change (422: ' +
    'an order keeps the customer it was created for, so erasing a customer always reaches it; cancel it and submit a new order instead). ' +
    'Each accepted change carries a new `correlation_id`, which its events carry too.',
  body: OrderInputSchema,
  responses: {
    201: { description: 'Created', schema: OrderWriteResultSchema },
    200: { description: 'Updated or unchanged', schema: OrderWriteResultSchema },
  },
  problems: ['invalid_state_transition', 'stale_source_version'],
});

export const handler = mutationHandler(contract, async ({ principal, body, now, requestId }) => {
  const { order, outcome } = await commands.submit(principal.tenant, body, { now, requestId });
  return {
    status: outcome === 'created' ? 201 : 200,
    body: {
      external_order_id: order.external_order_id,
      order_kind: order.order_kind,
      processing_state: order.processing_state,
      correlation_id: order.correlation_id,
      outcome,
    },
  };
});
