import { defineOperation } from '#shared/http/operation.ts';
import { viewDelivery } from '#shared/webhooks/delivery-ops.ts';
import { DeliveryIdParams, DeliveryWithAttemptsSchema } from '#shared/webhooks/webhook-schemas.ts';
import { readHandler } from '../handler.ts';
export const contract = defineOperation({
  operationId: 'getWebhookDelivery',
  description:
    'One delivery with the log of its attempts (time, status code or error class, latency, the start of the answer with long digit runs masked). ' +
    'An extension of the contract for receivers debugging their endpoint; the payload itself is never returned.',
  params: DeliveryIdParams,
  responses: { 200: { description: 'The delivery and its attempts', schema: DeliveryWithAttemptsSchema } },
});

export const handler = readHandler(contract, async ({ principal, params }) => ({
  status: 200,
  body: await viewDelivery(principal.tenant, params.deliveryId),
}));
