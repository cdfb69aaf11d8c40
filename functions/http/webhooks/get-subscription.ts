import { NotFoundError } from '#shared/errors.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { deliveryHealth } from '#shared/webhooks/delivery-list.ts';
import { readWebhookSubscription, subscriptionView } from '#shared/webhooks/subscription-store.ts';
import { SubscriptionSchema } from '#shared/webhooks/webhook-schemas.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'getWebhookSubscription',
  description: 'The subscription with its URL masked, event types, `enabled`, health and when the secret was last rotated. Never a secret.',
  responses: { 200: { description: 'The subscription', schema: SubscriptionSchema } },
});

export const handler = readHandler(contract, async ({ principal, now }) => {
  const subscription = await readWebhookSubscription(principal.tenant);
  if (!subscription) throw new NotFoundError('No webhook subscription yet: create it with PUT /webhook-subscription.');
  return { status: 200, body: subscriptionView(subscription, await deliveryHealth(principal.tenant, now), now) };
});
