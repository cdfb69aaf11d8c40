import * as z from 'zod/mini';
import { commands } from '#functions/order-processing.ts';
import { ExternalId } from '#shared/api/fields.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { OrderPatchSchema, OrderWriteResultSchema } from '#shared/orders/order-schemas.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'updateOrder',
  description:
    'Updates `items`, `priority`, `contact_not_before` or `confidence` with a newer `source_version`. Allowed while the order is neither final nor `in_call` ' +
    '(else 409 `invalid_state_transition`). The order is requalified at once: the answer shows `validated` (scheduling follows) or `rejected`.',
  params: z.object({ externalOrderId: ExternalId }),
  body: OrderPatchSchema,
  responses: { 200: { description: 'Updated, or unchanged for the stored version with identical content', schema: OrderWriteResultSchema } },
  problems: ['invalid_state_transition', 'stale_source_version'],
});

export const handler = mutationHandler(contract, async ({ principal, params, body, now, requestId }) => {
  const { order, outcome } = await commands.patch(principal.tenant, params.externalOrderId, body, { now, requestId });
  return {
    status: 200,
    body: { external_order_id: order.external_order_id, processing_state: order.processing_state, correlation_id: order.correlation_id, outcome },
  };
});
