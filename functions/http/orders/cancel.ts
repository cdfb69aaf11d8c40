import * as z from 'zod/mini';
import { commands } from '#functions/order-processing.ts';
import { ExternalId } from '#shared/api/fields.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { CancelSchema, OrderWriteResultSchema } from '#shared/orders/order-schemas.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'cancelOrder',
  description:
    'Cancels an order in any state that is not final, with compare-and-set: a concurrent state change is re-read, never overwritten. ' +
    'Cancelling a cancelled order answers it again (200); a completed or rejected order is 409 `invalid_state_transition`. Body optional.',
  params: z.object({ externalOrderId: ExternalId }),
  body: z.optional(CancelSchema),
  responses: { 200: { description: 'Cancelled', schema: OrderWriteResultSchema } },
  problems: ['invalid_state_transition', 'stale_source_version'],
});

export const handler = mutationHandler(contract, async ({ principal, params, body, now, requestId }) => {
  const cancel = { reason: body?.reason ?? 'customer_request', sourceVersion: body?.source_version };
  const order = await commands.cancel(principal.tenant, params.externalOrderId, cancel, { now, requestId });
  return {
    status: 200,
    body: { external_order_id: order.external_order_id, processing_state: order.processing_state, correlation_id: order.correlation_id, outcome: 'cancelled' },
  };
});
