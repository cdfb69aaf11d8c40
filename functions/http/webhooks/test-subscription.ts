import { defineOperation } from '#shared/http/operation.ts';
import { WEBHOOK_SEND_LIMIT_TEXT } from '#shared/webhooks/send-limit.ts';
import { sendTestEvent } from '#shared/webhooks/test-event.ts';
import { TestResultSchema } from '#shared/webhooks/webhook-schemas.ts';
import { mutationHandler } from '../mutation-handler.ts';
export const contract = defineOperation({
  operationId: 'testWebhookSubscription',
  description:
    'Sends a test event (`test: true`, type `commerce.order.status_changed.v1`, a synthetic `external_order_id`) through the same outbox and delivery path, ' +
    'whatever the allowlist and `enabled` say. Answers at once with the delivery to watch in GET /webhook-deliveries. ' +
    'Without a subscription the event goes to your live listen sessions alone (`delivery_id` null), and with neither the answer is 404. ' +
    WEBHOOK_SEND_LIMIT_TEXT,
  responses: { 202: { description: 'Queued', schema: TestResultSchema } },
});

export const handler = mutationHandler(contract, async ({ principal, correlationId, requestId, now }) => ({
  status: 202,
  body: await sendTestEvent(principal.tenant, { correlationId, requestId, now }),
}));
