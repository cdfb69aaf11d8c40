import { config } from '#functions/composition-root.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { systemResolver } from '#shared/webhooks/sender.ts';
import { saveCheckedSubscription } from '#shared/webhooks/subscription-commands.ts';
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
  const { created, view, secret } = await saveCheckedSubscription(principal.tenant, body, now, {
    allowPrivateUrls: config.webhookAllowPrivateUrls,
    resolve: systemResolver,
  });
  return {
    status: created ? 201 : 200,
    body: { ...view, ...(created ? { secret } : {}) },
    ...(created ? { headers: { 'Cache-Control': 'no-store' }, replayBody: { ...view, secret_already_shown: true } } : {}),
  };
});
