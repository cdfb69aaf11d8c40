import * as z from 'zod';
import { defineOperation } from '#shared/http/operation.ts';
import { httpHandler } from '../handler.ts';
import { replayDelivery } from '#shared/webhooks/replay.ts';
import { ReplayResultSchema } from '#shared/webhooks/webhook-schemas.ts';

export const contract = defineOperation({
  operationId: 'replayWebhookDelivery',
  description: 'A new delivery (`queued`, `replay_of` the original) of the same immutable event: the same `event_id` and the same payload bytes. No body.',
  params: z.object({ deliveryId: z.string().regex(/^dlv_[A-Za-z0-9_-]{1,64}$/, 'must be a delivery id such as dlv_…') }),
  responses: { 202: { description: 'Queued', schema: ReplayResultSchema } },
});

export const handler = httpHandler(contract, async ({ principal, params, now }) => ({
  status: 202,
  body: await replayDelivery(principal.tenant, params.deliveryId, now),
}));
