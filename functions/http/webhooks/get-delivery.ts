import { NotFoundError } from '#shared/errors.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { deliveryView } from '#shared/webhooks/delivery-item.ts';
import { deliveryWithAttempts } from '#shared/webhooks/delivery-ops.ts';
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

export const handler = readHandler(contract, async ({ principal, params }) => {
  const found = await deliveryWithAttempts(principal.tenant, params.deliveryId);
  if (!found) throw new NotFoundError(`No webhook delivery ${params.deliveryId}.`);
  return {
    status: 200,
    body: {
      ...deliveryView(found.delivery),
      attempt_log: found.attempts.map(({ attempt, at, status_code, error, latency_ms, response_excerpt }) => ({
        attempt,
        at,
        status_code,
        error,
        latency_ms,
        response_excerpt: response_excerpt ?? '',
      })),
    },
  };
});
