import { defineOperation } from '#shared/http/operation.ts';
import { replayDelivery } from '#shared/webhooks/replay.ts';
import { admitWebhookSend, WEBHOOK_SEND_LIMIT_TEXT } from '#shared/webhooks/send-limit.ts';
import { DeliveryIdParams, ReplayResultSchema } from '#shared/webhooks/webhook-schemas.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'replayWebhookDelivery',
  description:
    'A new delivery (`queued`, `replay_of` the original) of the same immutable event: the same `event_id` and the same payload bytes. No body. ' +
    WEBHOOK_SEND_LIMIT_TEXT,
  params: DeliveryIdParams,
  responses: { 202: { description: 'Queued', schema: ReplayResultSchema } },
});

export const handler = mutationHandler(contract, async ({ principal, params, now }) => {
  await admitWebhookSend(principal.tenant, now);
  return { status: 202, body: await replayDelivery(principal.tenant, params.deliveryId, now) };
});
