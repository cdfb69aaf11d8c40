import { config } from '#functions/composition-root.ts';
import { ValidationError } from '#shared/errors.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { deliveryHealth } from '#shared/webhooks/delivery-list.ts';
import { systemResolver } from '#shared/webhooks/sender.ts';
import { checkWebhookUrl, resolvePublicAddress } from '#shared/webhooks/ssrf.ts';
import { putSubscription, subscriptionView } from '#shared/webhooks/subscription-store.ts';
import { PutSubscriptionSchema, SubscriptionSchema } from '#shared/webhooks/webhook-schemas.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'putWebhookSubscription',
  description:
    "Creates or replaces the tenant's one subscription. The URL must be https on a public address (checked now, and again at every delivery): " +
    'a private, loopback, link-local, CGNAT, unique-local or metadata address, or user information in the URL, is 422 with the reason. ' +
    'The PUT that creates the subscription answers 201 with `secret`, shown this once; later PUTs keep the secret and never show it.',
  body: PutSubscriptionSchema,
  responses: {
    201: { description: 'Created; carries the secret once', schema: SubscriptionSchema },
    200: { description: 'Updated', schema: SubscriptionSchema },
  },
});

export const handler = mutationHandler(contract, async ({ principal, body, now }) => {
  const allowPrivate = config.webhookAllowPrivateUrls;
  const checked = checkWebhookUrl(body.url, allowPrivate);
  const resolved = checked.ok ? await resolvePublicAddress(checked.url, systemResolver, allowPrivate) : checked;
  if (!resolved.ok) throw new ValidationError([{ pointer: '/url', message: resolved.reason }], `The webhook URL is refused: it ${resolved.reason}.`);
  const { created, subscription } = await putSubscription(principal.tenant, body, now);
  const view = subscriptionView(subscription, await deliveryHealth(principal.tenant, now), now);
  return {
    status: created ? 201 : 200,
    body: { ...view, ...(created ? { secret: subscription.secret } : {}) },
    ...(created ? { headers: { 'Cache-Control': 'no-store' }, replayBody: { ...view, secret_already_shown: true } } : {}),
  };
});
