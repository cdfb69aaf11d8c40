import * as z from 'zod/mini';
import { ExternalId } from '#shared/api/fields.ts';
import { ResultSchema } from '#shared/calls/call-schemas.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { getResult } from '#shared/orders/call-history.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'getOrderResult',
  description:
    "The order's result once it is completed: call disposition, business outcome and the final order snapshot with its exact total. " +
    'Until then, and for an order that ended `cancelled` or `rejected`, 404 `resource_not_found` whose problem carries `processing_state` and ' +
    '`result_expected` (true while the order is still processing: ask again later; false once it ended without a result). An unknown order is a 404 without them.',
  params: z.object({ externalOrderId: ExternalId }),
  responses: { 200: { description: 'The result', schema: ResultSchema } },
});

export const handler = readHandler(contract, async ({ principal, params }) => ({
  status: 200,
  body: await getResult(principal.tenant, params.externalOrderId),
}));
