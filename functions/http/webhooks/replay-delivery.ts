import { defineOperation } from '#shared/http/operation.ts';
import { httpHandler } from '../handler.ts';
import { replayDelivery } from '#shared/webhooks/replay.ts';
import { DeliveryIdParams, ReplayResultSchema } from '#shared/webhooks/webhook-schemas.ts';

export const contract = defineOperation({
  operationId: 'replayWebhookDelivery',
  description: 'A new delivery (`queued`, `replay_of` the original) of the same immutable event: the same `event_id` and the same payload bytes. No body.',
  params: DeliveryIdParams,
  responses: { 202: { description: 'Queued', schema: ReplayResultSchema } },
});

export const handler = httpHandler(contract, async ({ principal, params, now }) => ({
  status: 202,
  body: await replayDelivery(principal.tenant, params.deliveryId, now),
}));
